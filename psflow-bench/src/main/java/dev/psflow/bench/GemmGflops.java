package dev.psflow.bench;

import dev.psflow.bench.GemmBenchmark.Problem;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Prints sgemm GFLOP/s (2·M·N·K per call) next to a naive i-k-j loop measured in the same run,
 * so the ratio holds even on a noisy machine. Quicker to read than JMH's ops/s, less rigorous:
 * each figure is the median of 21 timed batches filling {@code seconds-per-shape} (default 1),
 * after a warm-up of all shapes.
 *
 * <p>The two are timed in alternating batches so that both see the same load: on a shared machine
 * only such same-run ratios are comparable. With {@code --cpu-time} it divides by the thread's CPU time instead of wall time, which leaves
 * out the time other processes held the core (though not their effect on the shared caches).
 *
 * <pre>{@code
 * java --add-modules jdk.incubator.vector -cp psflow-bench/target/psflow-bench.jar \
 *     dev.psflow.bench.GemmGflops [--cpu-time] [seconds-per-shape] [shape ...]
 * }</pre>
 */
public final class GemmGflops {
  private static final List<String> SHAPES =
      List.of("100x784x100", "100x100x10", "784x100x100:tA", "100x100x784:tB", "512x512x512");
  private static final int BATCHES = 21;
  private static final int WARMUP_ROUNDS = 3;

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  /** Time by this thread's CPU time rather than the wall clock: see the class comment. */
  private static boolean cpuTime;

  private GemmGflops() {}

  public static void main(String[] args) {
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    cpuTime = rest.remove("--cpu-time");
    double seconds = !rest.isEmpty() ? Double.parseDouble(rest.get(0)) : 1.0;
    List<String> shapes = rest.size() > 1 ? rest.subList(1, rest.size()) : SHAPES;
    List<Problem> problems = shapes.stream().map(Problem::parse).toList();
    // Warm every shape before timing any: C2 compiles the kernels late (several seconds on a
    // busy machine), and the Vector API runs ~100x slower until it has.
    for (int round = 0; round < WARMUP_ROUNDS; round++) {
      for (Problem p : problems) {
        repeatFor(p::gemm, seconds / 2);
        repeatFor(p::naive, seconds / 4);
      }
    }
    System.out.printf(Locale.ROOT, "%-16s %12s %12s %8s%n", "shape (MxKxN)", "Gemm GF/s", "naive GF/s", "ratio");
    for (Problem p : problems) {
      double[] both = gflops(p, seconds, p::gemm, p::naive);
      System.out.printf(Locale.ROOT, "%-16s %12.1f %12.1f %7.1fx%n", p.name(), both[0], both[1], both[0] / both[1]);
    }
  }

  /**
   * Median GFLOP/s of each op over BATCHES batches per op that together take about
   * {@code seconds} per op; the ops' batches alternate, so a change of load hits them alike.
   */
  private static double[] gflops(Problem p, double seconds, Runnable... ops) {
    int[] reps = new int[ops.length];
    double[][] rates = new double[ops.length][BATCHES];
    for (int o = 0; o < ops.length; o++) {
      long once = Math.max(1, time(ops[o], 1));
      reps[o] = (int) Math.max(1, seconds * 1e9 / BATCHES / once);
    }
    for (int i = 0; i < BATCHES; i++) {
      for (int o = 0; o < ops.length; o++) {
        rates[o][i] = p.flops() * reps[o] / time(ops[o], reps[o]);
      }
    }
    double[] medians = new double[ops.length];
    for (int o = 0; o < ops.length; o++) {
      Arrays.sort(rates[o]);
      medians[o] = rates[o][BATCHES / 2];
    }
    return medians;
  }

  private static void repeatFor(Runnable op, double seconds) {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < end) {
      op.run();
    }
  }

  private static long time(Runnable op, int reps) {
    long start = now();
    for (int i = 0; i < reps; i++) {
      op.run();
    }
    return Math.max(1, now() - start);
  }

  private static long now() {
    return cpuTime ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
  }
}
