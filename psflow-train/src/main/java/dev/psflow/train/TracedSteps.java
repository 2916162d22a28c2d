package dev.psflow.train;

import dev.psflow.exec.RunOptions;
import dev.psflow.exec.StepStats;
import dev.psflow.exec.timeline.Timeline;
import dev.psflow.exec.timeline.TraceFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code --trace_steps=A:B --trace_file=FILE}: which of a worker's training runs to trace, and the
 * Chrome trace they go to. A worker traces each run it starts while the global step it last saw
 * is in {@code A-1 .. B-1} (the runs that make global steps A..B) with
 * {@link RunOptions.TraceLevel#FULL_TRACE}, and once it has seen a global step past B writes them
 * to FILE with {@link TraceFile}: the workers of one run on one machine all add to that one file,
 * so it holds a process row per task. Untraced runs use the caller's options unchanged: nothing is
 * traced, nothing allocated. Not thread-safe: one per training loop.
 *
 * <pre>{@code
 * TracedSteps trace = TracedSteps.parse("100:105", Path.of("trace.json"), "/job:worker/task:0");
 * if (trace.covers(lastGlobalStep)) { run = runner.setOptions(TracedSteps.OPTIONS).runAndFetchMetadata(); ... }
 * }</pre>
 */
public final class TracedSteps {
  /** The options of a traced run. */
  public static final RunOptions OPTIONS = RunOptions.DEFAULTS.withTraceLevel(RunOptions.TraceLevel.FULL_TRACE);

  private static final Pattern RANGE = Pattern.compile("(\\d+):(\\d+)");

  private final long first;
  private final long last;
  private final Path file;
  private final Timeline timeline;
  private final long sinceMillis;
  private int runs;
  private boolean written;

  public TracedSteps(long first, long last, Path file, String task) {
    if (first < 0 || last < first) {
      throw new IllegalArgumentException("--trace_steps must be A:B with 0 <= A <= B, got " + first + ":" + last);
    }
    if (file == null) {
      throw new IllegalArgumentException("--trace_steps needs --trace_file");
    }
    this.first = first;
    this.last = last;
    this.file = file;
    this.timeline = new Timeline(task);
    // A file last written before this process started is a previous run's: replaced, not added to.
    this.sinceMillis = ProcessHandle.current().info().startInstant().orElse(Instant.now()).toEpochMilli();
  }

  /** Parses {@code A:B} (global steps, inclusive). */
  public static TracedSteps parse(String steps, Path file, String task) {
    Matcher m = RANGE.matcher(steps.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("--trace_steps must be A:B (global steps, e.g. 100:105), got '" + steps + "'");
    }
    return new TracedSteps(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), file, task);
  }

  /** Whether the run a worker starts after seeing {@code lastGlobalStep} (-1: none yet) is traced. */
  public boolean covers(long lastGlobalStep) {
    return !written && lastGlobalStep >= 0 && lastGlobalStep + 1 >= first && lastGlobalStep + 1 <= last;
  }

  /** Keeps a traced run's statistics; {@code globalStep} is the global step the run fetched. */
  public void add(StepStats stats, long globalStep) {
    timeline.add(stats, Map.of("global_step", globalStep));
    runs++;
  }

  /**
   * After each run: writes the file once the worker has seen a global step past B (or, with
   * {@code end}, when training ended first). Returns the line to print when it wrote, else null.
   */
  public String afterRun(long globalStep, boolean end) {
    if (written || (globalStep < last && !end) || timeline.isEmpty()) {
      return null;
    }
    written = true;
    try {
      TraceFile.write(file, timeline.events(), sinceMillis);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the trace to --trace_file " + file + ": " + e.getMessage(), e);
    }
    return "added the trace of " + runs + " run(s) in global steps " + first + ".." + last + " to " + file
        + " (open it in ui.perfetto.dev or chrome://tracing)";
  }
}
