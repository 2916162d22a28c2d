package dev.psflow.distributed;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who has run steps on this task, when each was last heard from and the last step each was seen
 * at: what GetStatus reports per worker and what the chief's stall line reads. One small entry per
 * calling task, updated in place (no allocation per step); callers beyond {@link #MAX_CALLERS} are
 * not tracked, so a peer making up names cannot grow it without bound. Thread-safe.
 */
final class ReplicaActivity {
  static final int MAX_CALLERS = 4096;

  private static final class Seen {
    volatile long step = -1;
    volatile long heardMillis;
    volatile boolean sync; // its steps are known by its sync gradients' local_step, not by the step it began at
  }

  private final Map<String, Seen> seen = new ConcurrentHashMap<>();

  /** {@code caller} started a step here; {@code step} >= 0 is the global step it read (async training). */
  void heard(String caller, long step) {
    Seen s = entry(caller);
    if (s != null) {
      s.heardMillis = System.currentTimeMillis();
      if (step >= 0 && !s.sync) {
        s.step = step;
      }
    }
  }

  /** {@code caller}'s sync gradient for {@code step} arrived. */
  void stepSeen(String caller, long step) {
    Seen s = entry(caller);
    if (s != null) {
      s.heardMillis = System.currentTimeMillis();
      s.step = step;
      s.sync = true;
    }
  }

  private Seen entry(String caller) {
    if (caller == null || caller.isEmpty()) {
      return null;
    }
    Seen s = seen.get(caller);
    if (s == null && seen.size() < MAX_CALLERS) {
      s = seen.computeIfAbsent(caller, c -> new Seen());
    }
    return s;
  }

  List<WorkerClient.ReplicaSeen> snapshot() {
    List<WorkerClient.ReplicaSeen> out = new ArrayList<>();
    seen.forEach((task, s) -> out.add(new WorkerClient.ReplicaSeen(task, s.step, s.heardMillis)));
    out.sort((a, b) -> a.task().compareTo(b.task()));
    return out;
  }
}
