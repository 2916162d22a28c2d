package dev.psflow.bench.sidebyside;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Runs one job of one {@link Contender} and measures it. Local: one process. Distributed: the ps
 * tasks, worker 1 and worker 0 started in that order on free 127.0.0.1 ports, as the reference's
 * README starts them by hand; when both workers have exited the ps tasks are stopped by PID
 * (SIGTERM). The main job, for a system with a command for it (psflow's local-cluster): that one
 * command, measured as a whole (its CPU is every process it started and reaped); otherwise as a
 * distributed job. Every process is killed on a failure, on the timeout and when the harness exits.
 *
 * <p>Not thread-safe: one job at a time.
 */
final class JobRunner {
  /** Thrown when a run cannot be measured: one line, then the last output lines of the process at fault. */
  static final class RunFailed extends Exception {
    final String tail;

    RunFailed(String line, String tail) {
      super(line);
      this.tail = tail;
    }
  }

  private static final long POLL_MILLIS = 100;
  private static final double PS_STOP_SECONDS = 15;
  private static final Set<MeasuredProcess> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(MeasuredProcess::kill)));
  }

  private final Path logDir;
  private final double clockTicksPerSecond;

  JobRunner(Path logDir, double clockTicksPerSecond) {
    this.logDir = logDir;
    this.clockTicksPerSecond = clockTicksPerSecond;
  }

  /** Runs {@code workload} once; {@code label} names the run in log files and messages (e.g. {@code run2-async-psflow}). */
  RunResult run(Contender c, Workload workload, int trainSteps, Path dataDir, double timeoutSeconds, String label)
      throws RunFailed, InterruptedException {
    List<MeasuredProcess> started = new ArrayList<>();
    try {
      if (workload.mainJob()) {
        Contender.Job job = new Contender.Job(workload, trainSteps, dataDir, null, null, logDir.resolve(label));
        Optional<List<String>> command = c.mainJobCommand(job);
        if (command.isPresent()) {
          return mainJob(c, job, command.get(), timeoutSeconds, label, started);
        }
      }
      return workload.distributed()
          ? distributed(c, workload, trainSteps, dataDir, timeoutSeconds, label, started)
          : local(c, workload, trainSteps, dataDir, timeoutSeconds, label, started);
    } finally {
      started.forEach(p -> {
        p.kill();
        LIVE.remove(p);
      });
    }
  }

  private RunResult local(Contender c, Workload w, int trainSteps, Path dataDir, double timeout, String label,
      List<MeasuredProcess> started) throws RunFailed, InterruptedException {
    Contender.Job job = new Contender.Job(w, trainSteps, dataDir, null, null, logDir.resolve(label));
    MeasuredProcess p = start("local", c.localCommand(job), label, started);
    watch(started, List.of(p), timeout, label);
    ProcessStats s = p.stats(clockTicksPerSecond);
    double rate = c.localStepsPerSec(p.lines()).orElseThrow(() -> new RunFailed(label + ": " + c.name()
        + " printed no local steps/sec line", tailOf(p)));
    return new RunResult(trainSteps, rate, Map.of("local", s), 0, 0, s.wallSeconds());
  }

  /**
   * The README's one command for the whole job: global steps/sec from the slower of its workers'
   * relayed {@code Training elapsed time} lines, CPU of everything it ran (the launcher reaps its
   * tasks, so their CPU is in its own children's), launch to exit. Peak RSS is the launcher's alone,
   * so the table leaves it out.
   */
  private RunResult mainJob(Contender c, Contender.Job job, List<String> command, double timeout, String label,
      List<MeasuredProcess> started) throws RunFailed, InterruptedException {
    MeasuredProcess p = start("job", command, label, started);
    watch(started, List.of(p), timeout, label);
    ProcessStats s = p.stats(clockTicksPerSecond);
    List<Double> elapsed = LogLines.numbers(p.lines(), LogLines.TRAINING_ELAPSED);
    if (elapsed.size() < Workload.WORKERS) {
      throw new RunFailed(label + ": " + c.name() + " printed " + elapsed.size() + " 'Training elapsed time' lines, "
          + "one per worker expected", tailOf(p));
    }
    long wireBytes = 0;
    long workerSteps = 0;
    for (LogLines.Wire w : LogLines.wires(p.lines())) {
      wireBytes += w.bytes();
      workerSteps += w.localSteps();
    }
    double slowest = elapsed.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    return new RunResult(job.trainSteps(), job.trainSteps() / slowest, Map.of("job", s), wireBytes, workerSteps,
        s.wallSeconds());
  }

  private RunResult distributed(Contender c, Workload w, int trainSteps, Path dataDir, double timeout, String label,
      List<MeasuredProcess> started) throws RunFailed, InterruptedException {
    List<String> addresses = freeAddresses(w.psTasks() + Workload.WORKERS);
    Contender.Job job = new Contender.Job(w, trainSteps, dataDir,
        String.join(",", addresses.subList(0, w.psTasks())),
        String.join(",", addresses.subList(w.psTasks(), addresses.size())), logDir.resolve(label));
    List<MeasuredProcess> ps = new ArrayList<>();
    for (int i = 0; i < w.psTasks(); i++) {
      ps.add(start("ps" + i, c.taskCommand(job, "ps", i), label, started));
    }
    MeasuredProcess worker1 = start("worker1", c.taskCommand(job, "worker", 1), label, started);
    MeasuredProcess worker0 = start("worker0", c.taskCommand(job, "worker", 0), label, started);
    List<MeasuredProcess> workers = List.of(worker0, worker1);
    watch(started, workers, timeout, label);
    long lastExit = Math.max(worker0.exitNanos(), worker1.exitNanos());
    for (MeasuredProcess p : ps) {
      p.stop();
    }
    for (MeasuredProcess p : ps) {
      if (!p.waitFor(PS_STOP_SECONDS)) {
        p.kill(); // its CPU is then unknown (NaN), which the table shows
      }
    }
    double slowest = 0;
    long wireBytes = 0;
    long workerSteps = 0;
    for (MeasuredProcess p : workers) {
      List<String> out = p.lines();
      slowest = Math.max(slowest, LogLines.lastNumber(out, LogLines.TRAINING_ELAPSED).orElseThrow(() -> new RunFailed(
          label + ": " + c.name() + " " + p.role + " printed no 'Training elapsed time' line", tailOf(p))));
      LogLines.Wire wire = LogLines.wire(out);
      if (wire != null) {
        wireBytes += wire.bytes();
        workerSteps += wire.localSteps();
      }
    }
    Map<String, ProcessStats> stats = new LinkedHashMap<>();
    for (MeasuredProcess p : ps) {
      stats.put(p.role, p.stats(clockTicksPerSecond));
    }
    stats.put("worker0", worker0.stats(clockTicksPerSecond));
    stats.put("worker1", worker1.stats(clockTicksPerSecond));
    return new RunResult(trainSteps, trainSteps / slowest, stats, wireBytes, workerSteps,
        (lastExit - ps.get(0).startNanos()) / 1e9);
  }

  private MeasuredProcess start(String role, List<String> command, String label, List<MeasuredProcess> started) {
    MeasuredProcess p = MeasuredProcess.start(role, command, logDir.resolve(label + "-" + role + ".log"));
    started.add(p);
    LIVE.add(p);
    return p;
  }

  /**
   * Polls every process until all of {@code awaited} have exited with code 0; fails at once when
   * any process exits with another code (a ps exiting at all is a failure), or at the timeout.
   */
  private void watch(List<MeasuredProcess> all, List<MeasuredProcess> awaited, double timeoutSeconds, String label)
      throws RunFailed, InterruptedException {
    long deadline = System.nanoTime() + (long) (timeoutSeconds * 1e9);
    while (true) {
      for (MeasuredProcess p : all) {
        p.poll();
        Integer rc = p.exitCode().orElse(null);
        if (rc != null && (rc != 0 || !awaited.contains(p))) {
          throw new RunFailed(label + ": " + p.role + " exited with code " + rc + " (log: "
              + logDir.resolve(label + "-" + p.role + ".log") + "); its last lines:", tailOf(p));
        }
      }
      if (awaited.stream().noneMatch(MeasuredProcess::isAlive)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        String running = awaited.stream().filter(MeasuredProcess::isAlive).map(p -> p.role)
            .collect(Collectors.joining(", "));
        MeasuredProcess first = awaited.stream().filter(MeasuredProcess::isAlive).findFirst().orElseThrow();
        throw new RunFailed(String.format(Locale.ROOT, "%s: timed out after %.0f s (still running: %s; "
            + "--timeout_s to allow more); %s's last lines:", label, timeoutSeconds, running, first.role), tailOf(first));
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  private static String tailOf(MeasuredProcess p) {
    return p.tail(12);
  }

  /** {@code n} distinct free loopback addresses ({@code 127.0.0.1:port}), all held open until all are chosen. */
  static List<String> freeAddresses(int n) {
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      return held.stream().map(s -> "127.0.0.1:" + s.getLocalPort()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find free ports on 127.0.0.1: " + e.getMessage(), e);
    } finally {
      for (ServerSocket s : held) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing a listening socket that never accepted
        }
      }
    }
  }
}
