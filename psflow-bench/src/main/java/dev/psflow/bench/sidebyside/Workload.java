package dev.psflow.bench.sidebyside;

import java.util.Locale;

/**
 * One training job of the replica example: in one process ({@code psTasks == 0}), or as
 * {@code psTasks} ps processes and two worker processes, asynchronous or with synchronous replicas.
 * Batch 100 and Adam 0.01 always; {@code hiddenUnits} sets the model's size. The {@code mainJob}
 * is the README's main job, async with one ps: psflow runs the README's own command (local-cluster,
 * which makes the run's certificates, starts the tasks and relays their lines), TensorFlow its three
 * tasks by hand as its README does; it is timed as a whole, launch to exit.
 */
record Workload(String name, int psTasks, boolean syncReplicas, int hiddenUnits, boolean mainJob) {
  static final int WORKERS = 2;
  static final int BATCH_SIZE = 100;
  static final double LEARNING_RATE = 0.01;

  static final Workload LOCAL = new Workload("local", 0, false, 100, false);
  static final Workload ASYNC = new Workload("async", 1, false, 100, false);
  static final Workload SYNC = new Workload("sync", 1, true, 100, false);
  static final Workload MAIN = new Workload("main", 1, false, 100, true);

  /** The workload named on the command line ({@code local}, {@code async}, {@code sync} or {@code main}). */
  static Workload named(String name) {
    return switch (name) {
      case "local" -> LOCAL;
      case "async" -> ASYNC;
      case "sync" -> SYNC;
      case "main" -> MAIN;
      default -> throw new IllegalArgumentException(
          "--workloads: unknown workload '" + name + "' (local, async, sync or main)");
    };
  }

  /** The async workload with another model size or another number of ps tasks (the scaling section). */
  static Workload asyncWith(int psTasks, int hiddenUnits) {
    return new Workload("async", psTasks, false, hiddenUnits, false);
  }

  boolean distributed() {
    return psTasks > 0;
  }

  /** Parameters of the model: 784·h + h weights and biases into the hidden layer, 10·h + 10 out of it. */
  long parameters() {
    return 784L * hiddenUnits + hiddenUnits + 10L * hiddenUnits + 10;
  }

  /** A worker step's ideal payload: every parameter pulled and its gradient pushed, 4 bytes each (636,080 at 100 units). */
  long idealWireBytesPerStep() {
    return 2 * 4 * parameters();
  }

  /** How the table names it, e.g. {@code async (1 ps + 2 workers)}. */
  String title() {
    if (mainJob) {
      return "main job: the README's local-cluster command, async, 1 ps + 2 workers (TensorFlow: its tasks by hand)";
    }
    return distributed()
        ? String.format(Locale.ROOT, "%s (%d ps + %d workers)", name, psTasks, WORKERS)
        : name + " (one process)";
  }
}
