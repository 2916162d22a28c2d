package dev.psflow.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/**
 * Prints the output of several task processes as whole lines, each prefixed with its task
 * ({@code [worker1] step 10}), plus local-cluster's own notes, and shows each task line to the
 * listeners (for kills triggered by a line). Thread-safe: one lock around each line, so lines of
 * different tasks never mix mid-line. Does not own the writers.
 *
 * <pre>{@code
 * LinePrefixer out = new LinePrefixer(stdout, stderr);
 * Thread pump = out.pump("ps0", process.getInputStream()); // copies until end of stream
 * out.note("restarting worker1");                          // "local-cluster: restarting worker1"
 * }</pre>
 */
final class LinePrefixer {
  private final PrintWriter out;
  private final PrintWriter err;
  private final ReentrantLock lock = new ReentrantLock();
  private final List<BiConsumer<String, String>> listeners = new CopyOnWriteArrayList<>();

  LinePrefixer(PrintWriter out, PrintWriter err) {
    this.out = out;
    this.err = err;
  }

  /**
   * Prints one line of {@code task}'s output, flushed only if {@code flush} (otherwise more of the
   * task's lines are already read, and the last of them flushes), then shows it to the listeners.
   */
  private void line(String task, String text, boolean flush) {
    print(out, "[" + task + "] " + text, flush);
    for (BiConsumer<String, String> l : listeners) {
      l.accept(task, text);
    }
  }

  /** Calls {@code listener} with (task, line without the prefix) after each task line is printed, on the copying thread. */
  void onLine(BiConsumer<String, String> listener) {
    listeners.add(listener);
  }

  /** Prints one line from local-cluster itself to the output stream. */
  void note(String text) {
    print(out, "local-cluster: " + text);
  }

  /** Prints one line from local-cluster itself to the error stream. */
  void error(String text) {
    print(err, "local-cluster: " + text);
  }

  /**
   * Starts a thread that copies {@code in} (a task's merged stdout and stderr, UTF-8) line by line
   * until its end, then closes it.
   *
   * <p>A platform thread, not a virtual one, and one write per burst of lines rather than per line:
   * a worker prints a line per step, and relaying them from virtual threads (a carrier parked and
   * woken, a continuation mounted, per line) was a third of the launcher's CPU in the main job,
   * beside the tasks on the same cores.
   */
  Thread pump(String task, InputStream in) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String l = r.readLine(); l != null; l = r.readLine()) {
          line(task, l, !r.ready());
        }
      } catch (IOException e) {
        // The stream is closed when the process is gone; what it wrote before is printed below.
      } finally {
        flush(out);
      }
    }, "local-cluster-" + task);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private void print(PrintWriter w, String line) {
    print(w, line, true);
  }

  private void flush(PrintWriter w) {
    lock.lock();
    try {
      w.flush();
    } finally {
      lock.unlock();
    }
  }

  // print, not println: a PrintWriter made to flush (picocli's are) flushes on every println
  private void print(PrintWriter w, String line, boolean flush) {
    lock.lock();
    try {
      w.print(line);
      w.print(System.lineSeparator());
      if (flush) {
        w.flush();
      }
    } finally {
      lock.unlock();
    }
  }
}
