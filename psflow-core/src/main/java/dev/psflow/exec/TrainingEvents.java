package dev.psflow.exec;

/**
 * What the training kernels of a device tell whoever watches the task (its metrics): each gradient
 * applied to a variable and how stale it was, each gradient offered to a sync accumulator, each
 * checkpoint shard written. Kernels call it on their own threads, on the hot path: an
 * implementation must be thread-safe, cheap and never block. {@link #NONE} ignores everything (a
 * local session's device, a server without metrics).
 *
 * <pre>{@code
 * device.setEvents(new TrainingEvents() {
 *   public void gradientApplied(long staleness) { histogram.observe(staleness); }
 * });
 * }</pre>
 */
public interface TrainingEvents {
  TrainingEvents NONE = new TrainingEvents() {};

  /**
   * A ResourceApply* op updated a variable in a step whose parameters were read at global step
   * {@code readStep}; the global step is now {@code nowStep} (so the staleness is their difference).
   */
  default void gradientApplied(long readStep, long nowStep) {}

  /**
   * A sync replica's gradient, computed at {@code localStep} by {@code caller} (a task name, "" when
   * unknown), reached the accumulator named {@code accumulator}, whose global step is {@code
   * globalStep}: {@code added}, or dropped as stale.
   */
  default void gradientAccumulated(String caller, String accumulator, long localStep, long globalStep,
      boolean added) {}

  /** A SaveV2 wrote {@code bytes} in {@code nanos}. */
  default void checkpointSaved(long bytes, long nanos) {}
}
