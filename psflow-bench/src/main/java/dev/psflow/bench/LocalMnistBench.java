package dev.psflow.bench;

import dev.psflow.data.Batch;
import dev.psflow.data.DataSet;
import dev.psflow.data.MnistDatasets;
import dev.psflow.examples.MnistModel;
import dev.psflow.exec.LocalSession;
import dev.psflow.exec.Runner;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.ops.Ops;
import dev.psflow.train.AdamOptimizer;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * End-to-end local training speed of the replica example's model (batch 100, 100 hidden units,
 * Adam): steps/sec after a warm-up, then one traced run that says where a step's time goes — per op
 * type, and the executor's own overhead per op (step time not spent in kernels).
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp psflow-bench/target/psflow-bench.jar
 * dev.psflow.bench.LocalMnistBench [timedSteps] [warmupSteps]}
 */
public final class LocalMnistBench {
  private LocalMnistBench() {}

  public static void main(String[] args) {
    int timed = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    MnistDatasets data = MnistDatasets.read(MnistDatasets.defaultDataDir(), true);
    Graph g = new Graph();
    g.setSeed(1);
    Ops tf = Ops.create(g);
    MnistModel m = MnistModel.build(tf, 100);
    Operation train = new AdamOptimizer(0.01).minimize(m.crossEntropy(), m.globalStep());
    DataSet set = data.train().withSeed(1);
    try (LocalSession s = new LocalSession(g, SessionOptions.DEFAULTS)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      run(s, m, train, set, warmup);
      long t0 = System.nanoTime();
      long cpu0 = processCpuNanos();
      run(s, m, train, set, timed);
      double secs = (System.nanoTime() - t0) / 1e9;
      double cpuUs = (processCpuNanos() - cpu0) / 1e3 / timed;
      System.out.printf(Locale.ROOT, "local training: %d steps in %.2f s = %.1f steps/sec (%.0f us/step wall, "
          + "%.0f us/step of CPU: %.0f steps per CPU-second)%n", timed, secs, timed / secs, secs * 1e6 / timed, cpuUs,
          1e6 / cpuUs);
      profile(s, m, train, set, Math.max(200, timed / 10));
    }
  }

  /** CPU time of the whole process (all threads): unlike wall time, it does not grow when other processes share the cores. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void run(LocalSession s, MnistModel m, Operation train, DataSet set, int steps) {
    for (int i = 0; i < steps; i++) {
      Batch b = set.nextBatch(100);
      Runner r = s.runner().feed(m.x(), b.images()).feed(m.labels(), b.labels()).addTarget(train);
      r.run();
    }
  }

  private static void profile(LocalSession s, MnistModel m, Operation train, DataSet set, int steps) {
    Map<String, LongAdder> byType = new ConcurrentHashMap<>();
    Map<String, LongAdder> calls = new ConcurrentHashMap<>();
    LongAdder ops = new LongAdder();
    s.setTracer((op, start, end) -> {
      byType.computeIfAbsent(op.type(), k -> new LongAdder()).add(end - start);
      calls.computeIfAbsent(op.type(), k -> new LongAdder()).increment();
      ops.increment();
    });
    long t0 = System.nanoTime();
    run(s, m, train, set, steps);
    long wall = System.nanoTime() - t0;
    s.setTracer(null);
    long kernels = byType.values().stream().mapToLong(LongAdder::sum).sum();
    double opsPerStep = ops.sum() / (double) steps;
    System.out.printf(Locale.ROOT, "traced: %.0f us/step, %.0f ops/step, kernels %.0f us/step, "
        + "executor+session overhead %.0f us/step (%.2f us/op)%n", wall / 1e3 / steps, opsPerStep,
        kernels / 1e3 / steps, (wall - kernels) / 1e3 / steps, (wall - kernels) / 1e3 / steps / opsPerStep);
    System.out.println("time per step by op type:");
    byType.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
        .forEach(e -> System.out.printf(Locale.ROOT, "  %-36s %8.1f us  %5.1f%%  %5.1f runs%n", e.getKey(),
            e.getValue().sum() / 1e3 / steps, 100.0 * e.getValue().sum() / kernels,
            calls.get(e.getKey()).sum() / (double) steps));
  }
}
