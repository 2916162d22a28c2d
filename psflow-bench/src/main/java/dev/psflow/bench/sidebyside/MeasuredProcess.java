package dev.psflow.bench.sidebyside;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One JVM under measurement, started through a one-line {@code /bin/sh} wrapper:
 * {@code sh -c '"$@"; read /proc/$$/stat > statFile'}. When the JVM exits the shell has reaped
 * it, so the shell's cutime + cstime are exactly the JVM's user + system CPU over its whole life
 * (no polling gap at the end, whatever the JVM did while exiting). Peak RSS is the JVM's
 * {@code VmHWM}, read from {@code /proc/<jvm pid>/status} each time {@link #poll()} is called
 * (every 100 ms by {@link JobRunner}); the highest value is kept. Launch to exit is wall time
 * from {@code start} to the shell's exit.
 *
 * <p>Output (stdout and stderr merged) is copied to a log file, each line after the seconds since
 * launch, and kept in memory as printed for parsing.
 * Thread-safety: {@link #poll()}, {@link #stop()} and {@link #kill()} are for the one thread that
 * runs the job; the reader thread only appends lines.
 */
final class MeasuredProcess {
  private static final String WRAPPER =
      "f=$1; shift; \"$@\"; rc=$?; read -r s < /proc/$$/stat; printf '%s\\n' \"$s\" > \"$f\"; exit $rc";

  final String role;
  private final Process shell;
  private final Path statFile;
  private final long startNanos;
  private volatile long exitNanos;
  private final CompletableFuture<Void> exited;
  private final List<String> lines = new ArrayList<>();
  private final Thread reader;
  private ProcessHandle jvm;
  private long peakRss = -1;

  private MeasuredProcess(String role, Process shell, Path statFile, long startNanos, Path log) {
    this.role = role;
    this.shell = shell;
    this.statFile = statFile;
    this.startNanos = startNanos;
    this.exited = shell.onExit().thenRun(() -> exitNanos = System.nanoTime());
    this.reader = Thread.ofPlatform().daemon().name("bench-output-" + role).start(() -> copyOutput(log));
  }

  /**
   * Starts {@code command} (a {@code java ...} line, or {@code bin/psflow}, which execs one); its
   * output goes to {@code log}, its CPU to {@code log}.stat.
   */
  static MeasuredProcess start(String role, List<String> command, Path log) {
    Path statFile = log.resolveSibling(log.getFileName() + ".stat");
    List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c", WRAPPER, "sh", statFile.toString()));
    wrapped.addAll(command);
    try {
      Files.deleteIfExists(statFile);
      Files.writeString(log, String.join(" ", command) + "\n\n");
      long t0 = System.nanoTime();
      Process p = new ProcessBuilder(wrapped).redirectErrorStream(true).start();
      return new MeasuredProcess(role, p, statFile, t0, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + role + " (" + command.get(0) + "): " + e.getMessage(), e);
    }
  }

  private void copyOutput(Path log) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
        PrintWriter w = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8,
            StandardOpenOption.APPEND))) {
      for (String line; (line = r.readLine()) != null; ) {
        // Seconds since launch on each logged line: where launch-to-exit time goes, at a glance.
        w.printf(Locale.ROOT, "%8.3f  %s%n", (System.nanoTime() - startNanos) / 1e9, line);
        synchronized (lines) {
          lines.add(line);
        }
      }
    } catch (IOException e) {
      // The process was killed mid-line, or the log is gone: what was read is kept.
    }
  }

  /** Reads the JVM's peak RSS now (cheap: one small /proc file). */
  void poll() {
    if (jvm == null) {
      jvm = shell.toHandle().children().findFirst().orElse(null);
      if (jvm == null) {
        return;
      }
    }
    try {
      peakRss = Math.max(peakRss, LogLines.peakRssBytes(Files.readString(Path.of("/proc/" + jvm.pid() + "/status"))));
    } catch (IOException | UncheckedIOException e) {
      // exited between two polls: the last reading stands
    }
  }

  boolean isAlive() {
    return shell.isAlive();
  }

  /** The exit code, or empty while it runs. */
  Optional<Integer> exitCode() {
    return shell.isAlive() ? Optional.empty() : Optional.of(shell.exitValue());
  }

  /** Asks the JVM to end (SIGTERM), as one stops a ps by its PID. */
  void stop() {
    if (jvm != null) {
      jvm.destroy();
    } else {
      shell.toHandle().descendants().forEach(ProcessHandle::destroy);
    }
  }

  /** Ends the JVM and its shell at once (SIGKILL); safe to call at any time, more than once. */
  void kill() {
    shell.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
    shell.destroyForcibly();
  }

  /** Waits for the exit, up to {@code seconds}; true if it has exited. */
  boolean waitFor(double seconds) throws InterruptedException {
    return shell.waitFor((long) (seconds * 1000), TimeUnit.MILLISECONDS);
  }

  /** What it printed so far. */
  List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  /** Its last {@code n} lines, indented, for an error message. */
  String tail(int n) {
    if (!isAlive()) {
      try {
        reader.join(2000); // let the reader reach the last line of a process that has ended
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    List<String> all = lines();
    return String.join("\n", all.subList(Math.max(0, all.size() - n), all.size()).stream().map(l -> "  " + l).toList());
  }

  /** Its measurements, after it has exited; CPU is NaN if the wrapper could not write it (killed). */
  ProcessStats stats(double clockTicksPerSecond) throws InterruptedException {
    reader.join(5000);
    double cpu = Double.NaN;
    try {
      if (Files.exists(statFile)) {
        cpu = LogLines.childrenCpuSeconds(Files.readString(statFile).trim(), clockTicksPerSecond);
      }
    } catch (IOException e) {
      // leave NaN: shown as "?" in the table
    }
    return new ProcessStats(cpu, peakRss, (exitNanos() - startNanos) / 1e9);
  }

  long startNanos() {
    return startNanos;
  }

  /** When the shell exited; call after it has. */
  long exitNanos() {
    exited.join();
    return exitNanos;
  }
}
