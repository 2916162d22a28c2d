package dev.psflow.distributed;

import dev.psflow.cluster.ClusterSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Who is missing: the sync chief's watch on its steps. Every second it asks each ps task for its
 * status (GetStatus); when the accumulators' global step (the sync step being gathered) has not
 * moved for longer than the threshold, it logs ONE line for that step: the replicas all of whose
 * gradients for it arrived, the ones it still waits for, and when each was last heard from, e.g.
 *
 * <pre>
 * sync step 412 has waited 31.0 s: contributed: /job:worker/replica:0/task:0, /job:worker/replica:0/task:2;
 *   waiting for: /job:worker/replica:0/task:1 (last heard 33.2 s ago, at step 411)
 * </pre>
 *
 * (one line in the log). Runs on its own daemon thread, which may wait on the status calls; {@link
 * #close()} stops it. Thread-safe.
 *
 * <pre>{@code
 * StallReporter r = StallReporter.start(cluster, server::peer, Duration.ofSeconds(30), LOG::warn);
 * ... train ...
 * r.close();
 * }</pre>
 */
public final class StallReporter implements AutoCloseable {
  private final ClusterSpec cluster;
  private final Function<String, WorkerClient> clients;
  private final long thresholdMillis;
  private final Consumer<String> log;
  private final ScheduledExecutorService timer;
  private long step = -1;
  private long sinceMillis;
  private boolean reported;

  private StallReporter(ClusterSpec cluster, Function<String, WorkerClient> clients, Duration threshold,
      Consumer<String> log) {
    if (threshold.isNegative() || threshold.isZero()) {
      throw new IllegalArgumentException("--stall_report_secs must be positive, got " + threshold.toMillis() / 1000.0);
    }
    this.cluster = cluster;
    this.clients = clients;
    this.thresholdMillis = threshold.toMillis();
    this.log = log;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "psflow-stall-reporter");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts watching the ps tasks of {@code cluster} through {@code clients} (task name → its worker client). */
  public static StallReporter start(ClusterSpec cluster, Function<String, WorkerClient> clients, Duration threshold,
      Consumer<String> log) {
    StallReporter r = new StallReporter(cluster, clients, threshold, log);
    long period = Math.min(1000, Math.max(100, r.thresholdMillis / 3));
    r.timer.scheduleWithFixedDelay(r::check, period, period, TimeUnit.MILLISECONDS);
    return r;
  }

  private void check() {
    List<WorkerClient.WorkerStatus> ps = new ArrayList<>();
    try {
      List<CompletableFuture<WorkerClient.WorkerStatus>> calls = new ArrayList<>();
      for (String task : taskNames(cluster, "ps")) {
        calls.add(clients.apply(task).getStatus(2000));
      }
      for (CompletableFuture<WorkerClient.WorkerStatus> c : calls) {
        ps.add(c.join()); // on this reporter's own thread, never a transport's
      }
    } catch (RuntimeException e) {
      return; // a ps that is down: the session's own recovery says so
    }
    long now = System.currentTimeMillis();
    long syncStep = syncStep(ps);
    if (syncStep < 0) {
      return;
    }
    if (syncStep != step) {
      step = syncStep;
      sinceMillis = now;
      reported = false;
    } else if (!reported && now - sinceMillis > thresholdMillis) {
      reported = true;
      log.accept(describe(syncStep, now - sinceMillis, taskNames(cluster, "worker"), ps));
    }
  }

  static List<String> taskNames(ClusterSpec cluster, String job) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < cluster.numTasks(job); i++) {
      names.add(ClusterSpec.taskName(job, i));
    }
    return names;
  }

  /** The step the sync accumulators gather now (the lowest of their global steps), or -1 when there are none. */
  static long syncStep(List<WorkerClient.WorkerStatus> ps) {
    long lowest = Long.MAX_VALUE;
    for (WorkerClient.WorkerStatus s : ps) {
      for (WorkerClient.AccumulatorInfo a : s.accumulators()) {
        lowest = Math.min(lowest, a.globalStep());
      }
    }
    return lowest == Long.MAX_VALUE ? -1 : lowest;
  }

  /**
   * The stall line for sync step {@code step}, waited on for {@code waitedMillis}. A worker has
   * contributed the step when every ps task holding accumulators has all its gradients for it (the
   * lowest step they report for it); it was last heard from at the most recent of their accounts.
   */
  static String describe(long step, long waitedMillis, List<String> workers, List<WorkerClient.WorkerStatus> ps) {
    Map<String, long[]> seen = new LinkedHashMap<>(); // worker → {step all its gradients reached, ms since heard}
    for (String w : workers) {
      seen.put(w, new long[] {Long.MAX_VALUE, Long.MAX_VALUE});
    }
    for (WorkerClient.WorkerStatus s : ps) {
      boolean gathers = !s.accumulators().isEmpty();
      Map<String, WorkerClient.ReplicaSeen> replicas = new TreeMap<>();
      s.replicas().forEach(r -> replicas.put(r.task(), r));
      seen.forEach((w, known) -> {
        WorkerClient.ReplicaSeen r = replicas.get(w);
        if (gathers) {
          known[0] = Math.min(known[0], r == null ? -1 : r.lastStep());
        }
        if (r != null) {
          known[1] = Math.min(known[1], Math.max(0, s.nowMillis() - r.lastHeardMillis()));
        }
      });
    }
    List<String> contributed = new ArrayList<>();
    List<String> waiting = new ArrayList<>();
    seen.forEach((w, k) -> {
      if (k[0] != Long.MAX_VALUE && k[0] >= step) {
        contributed.add(w);
      } else if (k[1] == Long.MAX_VALUE) {
        waiting.add(w + " (never heard from)");
      } else {
        waiting.add(String.format(Locale.ROOT, "%s (last heard %.1f s ago, at step %s)", w, k[1] / 1000.0,
            k[0] < 0 || k[0] == Long.MAX_VALUE ? "none" : Long.toString(k[0])));
      }
    });
    return String.format(Locale.ROOT, "sync step %d has waited %.1f s: contributed: %s; waiting for: %s", step,
        waitedMillis / 1000.0, contributed.isEmpty() ? "none" : String.join(", ", contributed),
        waiting.isEmpty() ? "none (the chief's queue runner has yet to take the step)" : String.join(", ", waiting));
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
