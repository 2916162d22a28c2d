package dev.psflow.cli;

import dev.psflow.distributed.WorkerClient.AccumulatorInfo;
import dev.psflow.distributed.WorkerClient.ReplicaSeen;
import dev.psflow.distributed.WorkerClient.WorkerStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The table {@code psflow status} prints: one row per task (up or not, incarnation, global step,
 * live steps, queue sizes, accumulators), then one row per worker with the last step the ps tasks
 * saw from it and when they last heard from it. A pure function of the answers, for tests.
 */
final class StatusTable {
  /** One task's answer: its status, or why there is none. */
  record Answer(String task, String address, WorkerStatus status, String error) {}

  private StatusTable() {}

  static String format(List<Answer> answers, List<String> workers) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"TASK", "ADDRESS", "UP", "INCARNATION", "GLOBAL STEP", "LIVE STEPS", "QUEUES", "ACCUMULATORS"});
    Map<String, long[]> seen = new TreeMap<>(); // worker → {last step, ms ago}
    for (Answer a : answers) {
      WorkerStatus s = a.status();
      if (s == null) {
        rows.add(new String[] {a.task(), a.address(), "no: " + a.error(), "", "", "", "", ""});
        continue;
      }
      rows.add(new String[] {a.task(), a.address(), "up", String.format(Locale.ROOT, "%016x", s.incarnation()),
          s.globalStep() < 0 ? "-" : Long.toString(s.globalStep()), Integer.toString(s.liveSteps()), queues(s),
          accumulators(s.accumulators())});
      for (ReplicaSeen r : s.replicas()) {
        long ago = Math.max(0, s.nowMillis() - r.lastHeardMillis());
        long[] k = seen.computeIfAbsent(r.task(), t -> new long[] {-1, Long.MAX_VALUE});
        k[0] = Math.max(k[0], r.lastStep());
        k[1] = Math.min(k[1], ago);
      }
    }
    StringBuilder out = new StringBuilder(columns(rows));
    List<String[]> workerRows = new ArrayList<>();
    workerRows.add(new String[] {"WORKER", "LAST STEP SEEN", "LAST HEARD"});
    for (String w : workers) {
      long[] k = seen.get(w);
      workerRows.add(k == null ? new String[] {w, "-", "never"} : new String[] {w, k[0] < 0 ? "-" : Long.toString(k[0]),
          String.format(Locale.ROOT, "%.1f s ago", k[1] / 1000.0)});
    }
    return out.append('\n').append(columns(workerRows)).toString();
  }

  private static String queues(WorkerStatus s) {
    if (s.queues().isEmpty()) {
      return "-";
    }
    List<String> q = new ArrayList<>();
    s.queues().forEach((name, size) -> q.add(name + "=" + size));
    return String.join(" ", q);
  }

  /** "4 at step 412: 1 gradient each, 3 dropped" (the lowest step, the fewest in hand, dropped summed). */
  private static String accumulators(List<AccumulatorInfo> accs) {
    if (accs.isEmpty()) {
      return "-";
    }
    long step = Long.MAX_VALUE;
    int fewest = Integer.MAX_VALUE;
    int most = 0;
    long dropped = 0;
    for (AccumulatorInfo a : accs) {
      step = Math.min(step, a.globalStep());
      fewest = Math.min(fewest, a.numAccumulated());
      most = Math.max(most, a.numAccumulated());
      dropped += a.dropped();
    }
    String inHand = fewest == most ? fewest + " gradient(s) each" : fewest + "-" + most + " gradients";
    return accs.size() + " at step " + step + ": " + inHand + ", " + dropped + " stale dropped";
  }

  private static String columns(List<String[]> rows) {
    int[] width = new int[rows.get(0).length];
    for (String[] r : rows) {
      for (int i = 0; i < r.length - 1; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        line.append(i < r.length - 1 ? String.format(Locale.ROOT, "%-" + width[i] + "s  ", r[i]) : r[i]);
      }
      b.append(line.toString().stripTrailing()).append('\n');
    }
    return b.toString();
  }
}
