package dev.psflow.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/**
 * Prints the output of several task processes as whole lines, each prefixed with its task
 * ({@code [worker1] step 10}), plus local-cluster's own notes, and shows each task line to the
 * listeners (for kills triggered by a line). Thread-safe: one lock around each write of whole
 * lines, so lines of different tasks never mix mid-line. Does not own the writers.
 *
 * <pre>{@code
 * LinePrefixer out = new LinePrefixer(stdout, stderr);
 * Thread pump = out.pump("ps0", process.getInputStream()); // copies until end of stream
 * out.note("restarting worker1");                          // "local-cluster: restarting worker1"
 * }</pre>
 */
final class LinePrefixer {
  private static final long GATHER_MILLIS = 20;

  private final PrintWriter out;
  private final PrintWriter err;
  private final ReentrantLock lock = new ReentrantLock();
  private final List<BiConsumer<String, String>> listeners = new CopyOnWriteArrayList<>();

  LinePrefixer(PrintWriter out, PrintWriter err) {
    this.out = out;
    this.err = err;
  }

  /** Calls {@code listener} with (task, line without the prefix) after each task line is printed, on the copying thread. */
  void onLine(BiConsumer<String, String> listener) {
    listeners.add(listener);
  }

  /** Prints one line from local-cluster itself to the output stream. */
  void note(String text) {
    print(out, "local-cluster: " + text + System.lineSeparator());
  }

  /** Prints one line from local-cluster itself to the error stream. */
  void error(String text) {
    print(err, "local-cluster: " + text + System.lineSeparator());
  }

  /**
   * Starts a thread that copies {@code in} (a task's merged stdout and stderr, UTF-8) line by line
   * until its end, then closes it. A last line without a newline is printed with one.
   *
   * <p>A platform thread, not a virtual one, that reads at most every {@value #GATHER_MILLIS} ms and
   * takes whatever the task has written since as one chunk: its whole lines go out prefixed in one
   * write and one flush, and a line cut by the read waits for its end. A worker prints a line per
   * step; relaying them from virtual threads (a carrier parked and woken, a continuation mounted, per
   * line) was a third of the launcher's CPU in the main job, beside the tasks on the same cores.
   */
  Thread pump(String task, InputStream in) {
    Thread t = new Thread(() -> copyLines(task, in), "local-cluster-" + task);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private void copyLines(String task, InputStream in) {
    byte[] buf = new byte[64 * 1024];
    int kept = 0; // the start of a line whose end has not come yet
    try (in) {
      for (int n; (n = in.read(buf, kept, buf.length - kept)) > 0; ) {
        int end = kept + n;
        int whole = lastNewline(buf, kept, end) + 1; // [0, whole) are whole lines
        if (whole > 0) {
          lines(task, new String(buf, 0, whole, StandardCharsets.UTF_8));
          System.arraycopy(buf, whole, buf, 0, end - whole);
        } else if (end == buf.length) {
          buf = Arrays.copyOf(buf, buf.length * 2); // a line longer than the buffer
        }
        kept = end - whole;
        pause();
      }
    } catch (IOException e) {
      // The stream is closed when the process is gone; what it wrote before is printed below.
    } finally {
      if (kept > 0) {
        lines(task, new String(buf, 0, kept, StandardCharsets.UTF_8) + "\n");
      }
    }
  }

  // Lets the task's next lines gather in the pipe: a worker's line per step otherwise woke the relay
  // and went through the writers' flush and a write(2) each, 180 ms of the launcher's CPU in the
  // README's job (async-profiler); a line waits at most this long.
  private static void pause() {
    try {
      Thread.sleep(GATHER_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // and copy on without pausing
    }
  }

  private static int lastNewline(byte[] buf, int from, int end) {
    for (int i = end - 1; i >= from; i--) {
      if (buf[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** Prints {@code text}'s lines (each ends with a newline), prefixed, in one write, then shows them to the listeners. */
  private void lines(String task, String text) {
    String prefix = "[" + task + "] ";
    String separator = System.lineSeparator();
    StringBuilder b = new StringBuilder(text.length() + 32);
    boolean keep = !listeners.isEmpty(); // the lines are kept only for listeners
    List<String> each = keep ? new ArrayList<>() : List.of();
    for (int from = 0, nl; from < text.length(); from = nl + 1) {
      nl = text.indexOf('\n', from);
      String line = text.substring(from, nl > from && text.charAt(nl - 1) == '\r' ? nl - 1 : nl);
      b.append(prefix).append(line).append(separator);
      if (keep) {
        each.add(line);
      }
    }
    print(out, b.toString());
    for (String line : each) {
      for (BiConsumer<String, String> l : listeners) {
        l.accept(task, line);
      }
    }
  }

  // print, not println: a PrintWriter made to flush (picocli's are) flushes on every println
  private void print(PrintWriter w, String text) {
    lock.lock();
    try {
      w.print(text);
      w.flush();
    } finally {
      lock.unlock();
    }
  }
}
