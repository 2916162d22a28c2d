package dev.psflow.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Shows training progress as a user expects: on a terminal one live line redrawn in place (step,
 * loss, steps/sec, ETA); when output goes to a file or a pipe (also under {@code local-cluster},
 * whose tasks write to pipes), a plain line every few seconds. A program that prints lines of its
 * own while training prints them through {@link #above()}: on a terminal each appears above the
 * live line, which is drawn again below it. Thread-safe: the methods and the stream of
 * {@link #above()} lock this object.
 *
 * <pre>{@code
 * Progress p = new Progress(System.out, 200, "global step");
 * PrintStream lines = p.above();
 * lines.println("training step 1 done"); p.step(1, 2.3);
 * p.finish();
 * }</pre>
 */
public final class Progress {
  private static final long PLAIN_EVERY_NANOS = 5_000_000_000L;
  private static final long LIVE_EVERY_NANOS = 100_000_000L;

  private final PrintStream out;
  private final long totalSteps;
  private final boolean live;
  private final String unit;
  private final long start = System.nanoTime();
  private long lastPrint = start;
  private long lastStep;
  private boolean dirty;
  private boolean started;
  /** The live line last drawn (null: none yet), and whether other output is at the start of a line. */
  private String liveLine;
  private boolean atLineStart = true;

  public Progress(PrintStream out, long totalSteps) {
    this(out, totalSteps, "step");
  }

  /** @param unit what a step is called on the line ("step", "global step") */
  public Progress(PrintStream out, long totalSteps, String unit) {
    this(out, totalSteps, isTerminal(), unit);
  }

  Progress(PrintStream out, long totalSteps, boolean live) {
    this(out, totalSteps, live, "step");
  }

  Progress(PrintStream out, long totalSteps, boolean live, String unit) {
    this.out = out;
    this.totalSteps = totalSteps;
    this.live = live;
    this.unit = unit;
  }

  /** Call after each step; prints only when it is time to. */
  public synchronized void step(long step, double loss) {
    long now = System.nanoTime();
    if (!started) {
      // The first step sets the baseline: a rate measured from before training (setup, waiting for the chief) means nothing.
      started = true;
      lastPrint = now;
      lastStep = step;
      return;
    }
    if (now - lastPrint < (live ? LIVE_EVERY_NANOS : PLAIN_EVERY_NANOS) && step < totalSteps) {
      return;
    }
    double rate = (step - lastStep) / ((now - lastPrint) / 1e9);
    double eta = rate > 0 ? Math.max(0, totalSteps - step) / rate : 0;
    String line = String.format(Locale.ROOT, "%s %d/%d  loss %.4f  %.1f steps/sec  ETA %s",
        unit, step, totalSteps, loss, rate, formatSeconds(eta));
    if (live) {
      liveLine = line;
      if (atLineStart) {
        out.print("\r" + line + "\033[K");
        dirty = true;
      }
    } else {
      out.println(line);
    }
    out.flush();
    lastPrint = now;
    lastStep = step;
  }

  /** Ends the live line so that what follows starts on its own line. */
  public synchronized void finish() {
    if (live && dirty) {
      out.println();
      dirty = false;
    }
    liveLine = null;
  }

  /**
   * A stream for the program's own lines: on a terminal the live line is erased before each and
   * drawn again after it; otherwise the lines pass through unchanged.
   */
  public PrintStream above() {
    return above(out);
  }

  /**
   * As {@link #above()}, the lines going to {@code target} (e.g. standard error, which shares the
   * terminal): the live line is erased and drawn again on this progress's stream around them.
   */
  public PrintStream above(PrintStream target) {
    return new PrintStream(new OutputStream() {
      @Override
      public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        writeAbove(target, b, off, len);
      }

      @Override
      public void flush() {
        target.flush();
      }
    }, true, StandardCharsets.UTF_8);
  }

  /** Whether the line is live (a terminal) rather than plain lines. */
  public boolean isLive() {
    return live;
  }

  private synchronized void writeAbove(PrintStream target, byte[] b, int off, int len) {
    if (len == 0) {
      return;
    }
    if (live && dirty && atLineStart) {
      out.print("\r\033[K");
      out.flush();
      dirty = false;
    }
    target.write(b, off, len);
    target.flush();
    atLineStart = b[off + len - 1] == '\n';
    if (live && atLineStart && liveLine != null) {
      out.print(liveLine + "\033[K");
      dirty = true;
    }
    out.flush();
  }

  static String formatSeconds(double s) {
    long t = Math.round(s);
    return t >= 3600 ? String.format(Locale.ROOT, "%dh%02dm", t / 3600, t % 3600 / 60)
        : t >= 60 ? String.format(Locale.ROOT, "%dm%02ds", t / 60, t % 60) : t + "s";
  }

  /** True when standard output is an interactive terminal (Console.isTerminal on JDK 22+). */
  static boolean isTerminal() {
    java.io.Console c = System.console();
    if (c == null) {
      return false;
    }
    try {
      Method m = java.io.Console.class.getMethod("isTerminal");
      return (Boolean) m.invoke(c);
    } catch (ReflectiveOperationException e) {
      return true; // JDK 21: a console exists only when attached to a terminal
    }
  }
}
