package dev.psflow.exec;

/** What a run reports besides its fetches (TensorFlow's {@code RunMetadata}): the step's statistics when traced. */
public record RunMetadata(StepStats stepStats) {
  public static final RunMetadata EMPTY = new RunMetadata(StepStats.EMPTY);
}
