package dev.psflow.distributed;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who has run steps on this task, when each was last heard from and the last step each was seen
 * at: what GetStatus reports per worker and what the chief's stall line reads. One small entry per
 * calling task, updated in place (no allocation per step); callers beyond {@link #MAX_CALLERS} are
 * not tracked, so a peer making up names cannot grow it without bound. Thread-safe.
 *
 * <p>A sync replica's step is the last one for which ALL of its gradients reached this task's
 * accumulators: its gradients arrive one accumulator at a time, and a replica stopped between two
 * of them has not contributed the step, though one accumulator already holds its gradient.
 */
final class ReplicaActivity {
  static final int MAX_CALLERS = 4096;

  private static final class Seen {
    volatile long step = -1;
    volatile long heardMillis;
    // accumulator name → the local step of this caller's last gradient there; present once it is sync
    final Map<String, AtomicLong> syncSteps = new ConcurrentHashMap<>();
  }

  private final Map<String, Seen> seen = new ConcurrentHashMap<>();

  /** {@code caller} started a step here; {@code step} >= 0 is the global step it read (async training). */
  void heard(String caller, long step) {
    Seen s = entry(caller);
    if (s != null) {
      s.heardMillis = System.currentTimeMillis();
      if (step >= 0 && s.syncSteps.isEmpty()) {
        s.step = step;
      }
    }
  }

  /** {@code caller}'s sync gradient for {@code step} arrived at {@code accumulator}. */
  void stepSeen(String caller, String accumulator, long step) {
    Seen s = entry(caller);
    if (s != null) {
      s.heardMillis = System.currentTimeMillis();
      s.syncSteps.computeIfAbsent(accumulator, a -> new AtomicLong(-1)).set(step);
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

  /**
   * Each caller's last step and when it was last heard from; a sync caller's step is the lowest of
   * its steps over {@code accumulators} (this task's accumulators now), -1 while one has none of its
   * gradients.
   */
  List<WorkerClient.ReplicaSeen> snapshot(Collection<String> accumulators) {
    List<WorkerClient.ReplicaSeen> out = new ArrayList<>();
    seen.forEach((task, s) -> out.add(new WorkerClient.ReplicaSeen(task, step(s, accumulators), s.heardMillis)));
    out.sort((a, b) -> a.task().compareTo(b.task()));
    return out;
  }

  private static long step(Seen s, Collection<String> accumulators) {
    if (s.syncSteps.isEmpty()) {
      return s.step;
    }
    long lowest = Long.MAX_VALUE;
    for (String a : accumulators) {
      AtomicLong at = s.syncSteps.get(a);
      lowest = Math.min(lowest, at == null ? -1 : at.get());
    }
    if (lowest == Long.MAX_VALUE) { // no accumulators listed: the last step any of them saw
      lowest = -1;
      for (AtomicLong at : s.syncSteps.values()) {
        lowest = Math.max(lowest, at.get());
      }
    }
    return lowest;
  }
}
