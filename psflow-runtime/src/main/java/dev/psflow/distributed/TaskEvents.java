package dev.psflow.distributed;

import dev.psflow.exec.TrainingEvents;

/**
 * What a {@link Worker}'s device tells the task: sync gradients update who was last seen at which
 * step ({@link ReplicaActivity}, for GetStatus and the chief's stall line), and everything goes to
 * the task's metrics when they are on. Thread-safe; cheap (kernels call it on the hot path).
 */
final class TaskEvents implements TrainingEvents {
  private final ReplicaActivity activity;
  private volatile TaskMetrics metrics; // null: metrics are off

  TaskEvents(ReplicaActivity activity) {
    this.activity = activity;
  }

  TaskMetrics metrics() {
    return metrics;
  }

  void setMetrics(TaskMetrics m) {
    this.metrics = m;
  }

  @Override
  public void gradientApplied(long readStep, long nowStep) {
    TaskMetrics m = metrics;
    if (m != null) {
      m.gradientApplied(readStep, nowStep);
    }
  }

  @Override
  public void gradientAccumulated(String caller, String accumulator, long localStep, long globalStep,
      boolean added) {
    activity.stepSeen(caller, accumulator, localStep);
    TaskMetrics m = metrics;
    if (m != null) {
      m.gradientAccumulated(caller, accumulator, localStep, globalStep, added);
    }
  }

  @Override
  public void checkpointSaved(long bytes, long nanos) {
    TaskMetrics m = metrics;
    if (m != null) {
      m.checkpointSaved(bytes, nanos);
    }
  }
}
