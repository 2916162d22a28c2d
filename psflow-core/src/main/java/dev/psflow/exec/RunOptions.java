package dev.psflow.exec;

/**
 * Options of one run, as TensorFlow's {@code RunOptions}: how much to trace, and a deadline (0: the
 * session's default). With a trace level other than NO_TRACE, {@link Runner#runAndFetchMetadata()}
 * returns the step's statistics — every op's time and output bytes, per task.
 *
 * <pre>{@code
 * Session.Run r = session.runner().addTarget(train).setOptions(RunOptions.DEFAULTS.withTraceLevel(TraceLevel.FULL_TRACE))
 *     .runAndFetchMetadata();
 * r.metadata().stepStats().print(System.out);
 * }</pre>
 */
public record RunOptions(TraceLevel traceLevel, long timeoutMillis) {
  public static final RunOptions DEFAULTS = new RunOptions(TraceLevel.NO_TRACE, 0);

  /** TensorFlow's trace levels; psflow records the same statistics for every level but NO_TRACE. */
  public enum TraceLevel { NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE }

  public RunOptions {
    if (traceLevel == null) {
      throw new IllegalArgumentException("traceLevel is null: use TraceLevel.NO_TRACE");
    }
    if (timeoutMillis < 0) {
      throw new IllegalArgumentException("timeoutMillis must be >= 0, got " + timeoutMillis);
    }
  }

  public boolean traced() {
    return traceLevel != TraceLevel.NO_TRACE;
  }

  public RunOptions withTraceLevel(TraceLevel level) {
    return new RunOptions(level, timeoutMillis);
  }

  public RunOptions withTimeoutMillis(long millis) {
    return new RunOptions(traceLevel, millis);
  }
}
