package dev.psflow.examples;

/**
 * The replica example's line after every step, {@code "%f: Worker %d: training step %d done
 * (global step: %d)"} as mnist_replica.py prints it, the time in seconds since the epoch with six
 * decimals. Built without {@link java.util.Formatter}: formatting a double through it took ~0.1 ms
 * of a worker's CPU per step, about 1% of a distributed step. Stateless, so thread-safe.
 */
final class StepLine {
  private StepLine() {}

  /**
   * The line for a step that ended at {@code epochMillis}: the same text as {@code
   * String.format(Locale.ROOT, "%f", epochMillis / 1000.0)} for the time (milliseconds, then three zeros).
   */
  static String of(long epochMillis, int task, long localStep, long globalStep) {
    long millis = Math.floorMod(epochMillis, 1000L);
    StringBuilder b = new StringBuilder(80).append(Math.floorDiv(epochMillis, 1000L)).append('.');
    if (millis < 100) {
      b.append(millis < 10 ? "00" : "0");
    }
    return b.append(millis).append("000: Worker ").append(task).append(": training step ").append(localStep)
        .append(" done (global step: ").append(globalStep).append(')').toString();
  }
}
