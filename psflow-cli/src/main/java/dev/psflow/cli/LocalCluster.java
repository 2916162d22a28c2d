package dev.psflow.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * Runs the tasks of a cluster as processes on this machine: starts them all, waits until every
 * worker has exited, then stops the ps tasks (which never exit by themselves). A task that fails
 * for good (a worker's non-zero exit, any ps exit) stops the whole cluster at once rather than
 * leaving the others waiting for it. With restarts on, a failed process is started again with the
 * same command. The exit status counts each task's last process only. A shutdown hook stops every
 * process if this JVM is stopped (Ctrl-C, SIGTERM). Not thread-safe: {@link #run} once.
 *
 * <p>With backup workers ({@code maxLostWorkers > 0}: the program trains on without some of its
 * non-chief workers, as asynchronous training and sync training with fewer replicas to aggregate
 * than workers do), a non-chief worker that fails for good is reported in one line and the job goes
 * on, as long as no more than {@code maxLostWorkers} are lost. The job then ends with its chief
 * (worker0): the others get {@link #AFTER_CHIEF_GRACE} to finish by themselves before they are
 * stopped, and the exit status is the chief's.
 *
 * <pre>{@code
 * LocalCluster c = new LocalCluster(tasks, true, List.of(new Kill("worker1", Duration.ofSeconds(5))), 0, out);
 * int exitCode = c.run(); // 0 when every worker exited 0
 * }</pre>
 */
final class LocalCluster {
  /** How long a stopped process may take to exit after SIGTERM before it gets SIGKILL. */
  static final Duration STOP_GRACE = Duration.ofSeconds(5);
  /** Restarts after crashes, per task (restarts after a requested kill don't count). */
  static final int MAX_CRASH_RESTARTS = 3;
  /** With backup workers: how long the other workers may still run once the chief has ended. */
  static final Duration AFTER_CHIEF_GRACE = Duration.ofSeconds(10);

  /**
   * Kill {@code task}'s process (SIGKILL) {@code after} the cluster started, or, when
   * {@code afterLine} is set, once, when a line of any task's output first matches it.
   */
  record Kill(String task, Duration after, Pattern afterLine) {
    Kill(String task, Duration after) {
      this(task, after, null);
    }

    static Kill afterLine(String task, Pattern line) {
      return new Kill(task, Duration.ZERO, line);
    }

    @Override
    public String toString() {
      if (afterLine != null) {
        return task + "@after:" + afterLine.pattern();
      }
      long ms = after.toMillis();
      return task + "@" + (ms % 1000 == 0 ? String.valueOf(ms / 1000) : String.valueOf(ms / 1000.0));
    }
  }

  private record Exit(TaskProcess task, Process process) {}

  private final List<TaskProcess> tasks;
  private final boolean restartOnFailure;
  private final List<Kill> kills;
  private final int maxLostWorkers;
  private final LinePrefixer out;
  private final BlockingQueue<Exit> exits = new LinkedBlockingQueue<>();
  /** Non-chief workers that failed for good and that the job goes on without. */
  private final Set<TaskProcess> lost = new LinkedHashSet<>();

  /** {@code maxLostWorkers}: how many non-chief workers the job may lose and go on (0: none). */
  LocalCluster(List<TaskProcess> tasks, boolean restartOnFailure, List<Kill> kills, int maxLostWorkers, LinePrefixer out) {
    this.tasks = List.copyOf(tasks);
    this.restartOnFailure = restartOnFailure;
    this.kills = List.copyOf(kills);
    this.maxLostWorkers = maxLostWorkers;
    this.out = out;
  }

  /** Runs the cluster to its end; returns 0 if every worker's last process exited 0, else 1. */
  int run() throws InterruptedException {
    Thread hook = new Thread(() -> {
      out.note("stopping every task");
      stopQuietly();
    }, "local-cluster-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    List<Thread> killers = new ArrayList<>();
    try {
      for (Kill k : kills) {
        if (k.afterLine() != null) {
          killOnLine(k);
        }
      }
      for (TaskProcess t : tasks) {
        launch(t);
      }
      for (Kill k : kills) {
        if (k.afterLine() == null) {
          killers.add(Thread.ofVirtual().name("local-cluster-kill-" + k.task()).start(() -> killLater(k)));
        }
      }
      Map<TaskProcess, Integer> failures = new LinkedHashMap<>();
      supervise(failures);
      killers.forEach(Thread::interrupt);
      stop(failures);
      failures.forEach((t, code) -> out.error(
          t.name() + " exited with code " + code + (t.isPs() ? " before the workers finished" : "")));
      return failures.isEmpty() ? 0 : 1;
    } finally {
      killers.forEach(Thread::interrupt);
      stopQuietly(); // after an exception or an interrupt; a no-op after a normal end
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // The JVM is shutting down: the hook runs anyway.
      }
    }
  }

  /**
   * Waits until every worker has exited 0 (with backup workers: until the chief has, and then the
   * others for a while) or one task has failed for good (put in {@code failures} with its code).
   */
  private void supervise(Map<TaskProcess, Integer> failures) throws InterruptedException {
    Set<TaskProcess> running = new LinkedHashSet<>();
    tasks.stream().filter(t -> !t.isPs()).forEach(running::add);
    long chiefEnded = 0;
    while (!running.isEmpty()) {
      Exit e;
      if (chiefEnded == 0) {
        e = exits.take();
      } else {
        e = exits.poll(AFTER_CHIEF_GRACE.toNanos() - (System.nanoTime() - chiefEnded), TimeUnit.NANOSECONDS);
        if (e == null) {
          out.note("the chief has ended; stopping " + String.join(", ", running.stream().map(TaskProcess::name).toList()));
          return;
        }
      }
      TaskProcess t = e.task();
      if (t.isStopping()) {
        return; // the shutdown hook is stopping the cluster: exits are expected now
      }
      if (!t.isCurrent(e.process())) {
        continue;
      }
      int code = e.process().exitValue();
      t.drain(); // the task's last lines come before what we say about it
      if (code == 0 && !t.isPs()) {
        running.remove(t);
        if (maxLostWorkers > 0 && isChief(t)) {
          chiefEnded = System.nanoTime(); // the job ends with its chief
        }
      } else if (chiefEnded == 0 && code != 0 && restartOnFailure && t.mayRestart(MAX_CRASH_RESTARTS)) {
        out.note(t.name() + " exited with code " + code + "; restarting it");
        if (launch(t) == null) {
          return; // stopping (shutdown hook)
        }
      } else if (!t.isPs() && !isChief(t) && (chiefEnded != 0 || lost.size() < maxLostWorkers)) {
        running.remove(t);
        lost.add(t);
        if (chiefEnded == 0) {
          out.note(t.name() + " exited with code " + code + "; going on without it (backup worker " + lost.size()
              + " of at most " + maxLostWorkers + " the job can lose)");
        } else {
          out.note(t.name() + " exited with code " + code + " after the chief ended");
        }
      } else {
        if (maxLostWorkers > 0 && !t.isPs() && !isChief(t)) {
          out.note("the job cannot go on without " + t.name() + ": " + lost.size() + " backup worker"
              + (lost.size() == 1 ? " was" : "s were") + " lost already, the most it can lose");
        }
        failures.put(t, code);
        return;
      }
    }
  }

  private static boolean isChief(TaskProcess t) {
    return t.name().equals("worker0");
  }

  private Process launch(TaskProcess t) {
    Process p = t.start();
    if (p != null) {
      p.onExit().thenAccept(ended -> exits.add(new Exit(t, ended)));
    }
    return p;
  }

  private void killLater(Kill k) {
    try {
      Thread.sleep(k.after());
    } catch (InterruptedException e) {
      return; // the cluster ended first
    }
    kill(k);
  }

  /** Kills once, on the first task line that matches (the copying thread of that line does it). */
  private void killOnLine(Kill k) {
    AtomicBoolean done = new AtomicBoolean();
    out.onLine((task, line) -> {
      if (!done.get() && k.afterLine().matcher(line).find() && done.compareAndSet(false, true)) {
        kill(k);
      }
    });
  }

  private void kill(Kill k) {
    for (TaskProcess t : tasks) {
      if (t.name().equals(k.task())) {
        // Say it first, so the note comes before whatever the kill causes.
        out.note("killing " + t.name() + " (--kill=" + k + ")");
        if (!t.kill()) {
          out.note(t.name() + " was not running at --kill=" + k);
        }
      }
    }
  }

  /**
   * Stops every task: SIGTERM to all, then SIGKILL to those still running after the grace
   * period. A task whose process had already ended by itself with a failure goes into
   * {@code failures} unless it is there already.
   */
  private void stop(Map<TaskProcess, Integer> failures) throws InterruptedException {
    for (TaskProcess t : tasks) {
      Process ended = t.requestStop();
      if (ended != null && (t.isPs() || ended.exitValue() != 0) && !lost.contains(t)) {
        failures.putIfAbsent(t, ended.exitValue());
      }
    }
    long deadline = System.nanoTime() + STOP_GRACE.toNanos();
    for (TaskProcess t : tasks) {
      t.awaitStopped(deadline);
    }
  }

  private void stopQuietly() {
    try {
      stop(new LinkedHashMap<>());
    } catch (InterruptedException e) {
      tasks.forEach(TaskProcess::forceStop);
      Thread.currentThread().interrupt();
    }
  }
}
