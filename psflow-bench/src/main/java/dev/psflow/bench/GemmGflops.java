package dev.psflow.bench;

import dev.psflow.bench.GemmBenchmark.Problem;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Prints sgemm GFLOP/s (2·M·N·K per call) of psflow's {@link dev.psflow.tensor.Gemm} next to
 * OpenBLAS on one thread ({@link OpenBlasSgemm}) and a naive i-k-j loop, all measured in the same
 * run, so the ratios hold even on a noisy machine. Quicker to read than JMH's ops/s, less rigorous:
 * each figure is the median of 21 timed batches filling {@code seconds-per-shape} (default 1),
 * after a warm-up of all shapes. The last line weighs the five products of one MNIST training step
 * (hidden 100, batch 100) by their FLOPs: the step's GEMM time, psflow against OpenBLAS.
 *
 * <p>The ops are timed in alternating batches so that all see the same load: on a shared machine
 * only such same-run ratios are comparable. With {@code --cpu-time} it divides by the thread's CPU
 * time instead of wall time, which leaves out the time other processes held the core (though not
 * their effect on the shared caches).
 *
 * <pre>{@code
 * java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \
 *     -cp psflow-bench/target/psflow-bench.jar dev.psflow.bench.GemmGflops [--cpu-time] [seconds-per-shape] [shape ...]
 * }</pre>
 */
public final class GemmGflops {
  /** The products of one MNIST training step (hidden 100, batch 100): forward, then the dWs and dh. */
  private static final List<String> MODEL_STEP =
      List.of("100x784x100", "100x100x10", "784x100x100:tA", "100x100x10:tA", "100x10x100:tB");
  private static final List<String> SHAPES =
      Stream.concat(MODEL_STEP.stream(), Stream.of("100x100x784:tB", "512x512x512")).toList();
  private static final int BATCHES = 21;
  private static final int WARMUP_ROUNDS = 3;

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  /** Time by this thread's CPU time rather than the wall clock: see the class comment. */
  private static boolean cpuTime;

  private GemmGflops() {}

  public static void main(String[] args) {
    // One thread against OpenBLAS's one, unless asked otherwise: read before the first product splits.
    if (System.getProperty("psflow.intraOpThreads") == null) {
      System.setProperty("psflow.intraOpThreads", "1");
    }
    // psflow's own kernels, which Gemm leaves for OpenBLAS by default where OpenBLAS loads.
    if (System.getProperty("psflow.gemm") == null) {
      System.setProperty("psflow.gemm", "java");
    }
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    cpuTime = rest.remove("--cpu-time");
    double seconds = !rest.isEmpty() ? Double.parseDouble(rest.get(0)) : 1.0;
    List<String> shapes = rest.size() > 1 ? rest.subList(1, rest.size()) : SHAPES;
    List<Problem> problems = shapes.stream().map(Problem::parse).toList();
    String noBlas = OpenBlasSgemm.unavailable();
    if (noBlas != null) {
      System.out.println(noBlas + ": psflow's kernel and the naive loop only");
    }
    List<Runnable[]> ops = problems.stream()
        .map(p -> noBlas == null
            ? new Runnable[] {p::gemm, OpenBlasSgemm.of(p), p::naive}
            : new Runnable[] {p::gemm, p::naive})
        .toList();
    // Warm every shape before timing any: C2 compiles the kernels late (several seconds on a
    // busy machine), and the Vector API runs ~100x slower until it has.
    for (int round = 0; round < WARMUP_ROUNDS; round++) {
      for (Runnable[] o : ops) {
        for (int i = 0; i < o.length; i++) {
          repeatFor(o[i], i == o.length - 1 ? seconds / 4 : seconds / 2);
        }
      }
    }
    System.out.printf(Locale.ROOT, "%-16s %10s %10s %10s %10s%n", "shape (MxKxN)", "Gemm GF/s", "OpenBLAS", "Gemm/BLAS",
        "naive");
    double stepFlops = 0;
    double[] stepSeconds = new double[2];
    for (int s = 0; s < problems.size(); s++) {
      Problem p = problems.get(s);
      double[] r = gflops(p, seconds, ops.get(s));
      double blas = noBlas == null ? r[1] : Double.NaN;
      System.out.printf(Locale.ROOT, "%-16s %10.1f %10.1f %9.2fx %10.1f%n", p.name(), r[0], blas, r[0] / blas,
          r[r.length - 1]);
      if (MODEL_STEP.contains(p.name())) {
        stepFlops += p.flops();
        stepSeconds[0] += p.flops() / r[0] / 1e9;
        stepSeconds[1] += p.flops() / blas / 1e9;
      }
    }
    if (shapes.containsAll(MODEL_STEP)) {
      System.out.printf(Locale.ROOT, "%-16s %10.1f %10.1f %9.2fx   (FLOP-weighted: %.1f us against %.1f us a step)%n",
          "MNIST step", stepFlops / stepSeconds[0] / 1e9, stepFlops / stepSeconds[1] / 1e9,
          stepSeconds[1] / stepSeconds[0], stepSeconds[0] * 1e6, stepSeconds[1] * 1e6);
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
