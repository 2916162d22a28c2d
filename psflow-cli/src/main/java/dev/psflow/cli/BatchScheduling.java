package dev.psflow.cli;

import dev.psflow.tensor.NativeKernels;

/**
 * A cluster task runs its threads under Linux's {@code SCHED_BATCH} policy: the same priority as
 * any process, but a thread woken by a message waits for the running one's slice to end rather than
 * preempting it. Tasks that share cores (local-cluster, or a ps beside its workers) otherwise hand
 * each step back and forth by preemption: on two cores the README's job took 5.95 s on 11.52 s of
 * CPU against 5.62 s on 10.86 s under {@code SCHED_BATCH} (9 of 10 alternated pairs;
 * docs/benchmarks.md). A task alone on its cores is woken onto an idle one either way. Set through
 * psflow's C library ({@link NativeKernels#scheduleAsBatch}); where that is not loaded, or with
 * {@code -Dpsflow.sched_batch=false}, the task keeps the default policy.
 */
final class BatchScheduling {
  static final String PROPERTY = "psflow.sched_batch";

  private BatchScheduling() {}

  /** Moves this task's threads, and those it starts later, to SCHED_BATCH unless turned off; how many moved. */
  static int applyToThisTask() {
    if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
      return 0;
    }
    return NativeKernels.scheduleAsBatch();
  }
}
