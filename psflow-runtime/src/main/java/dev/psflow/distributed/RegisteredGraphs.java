package dev.psflow.distributed;

import dev.psflow.exec.Code;
import dev.psflow.exec.Executor;
import dev.psflow.exec.StatusException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The graphs registered on one worker, by handle, with a cap per session handle and one for the
 * task ({@link ServerLimits#maxGraphsPerSession()}, {@link ServerLimits#maxGraphs()}): a slot is
 * reserved before the (costly) import, so a peer registering without end is refused early.
 * Thread-safe.
 */
final class RegisteredGraphs {
  record Registered(String sessionHandle, Executor executor) {}

  private final String task;
  private final ServerLimits limits;
  private final Map<String, Registered> graphs = new ConcurrentHashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, Integer> perSession = new HashMap<>();
  private final AtomicLong handles = new AtomicLong();
  private int total;

  RegisteredGraphs(String task, ServerLimits limits) {
    this.task = task;
    this.limits = limits;
  }

  /** Takes a slot for one more graph of {@code session}; RESOURCE_EXHAUSTED when a cap is reached. */
  void reserve(String session) {
    lock.lock();
    try {
      int mine = perSession.getOrDefault(session, 0);
      if (mine >= limits.maxGraphsPerSession()) {
        throw new StatusException(Code.RESOURCE_EXHAUSTED, "session '" + abbreviate(session) + "' already has " + mine
            + " graphs registered on " + task + " (max_graphs_per_session = " + limits.maxGraphsPerSession()
            + "); deregister graphs it no longer runs");
      }
      if (total >= limits.maxGraphs()) {
        throw new StatusException(Code.RESOURCE_EXHAUSTED, task + " already has " + total
            + " graphs registered (max_graphs = " + limits.maxGraphs() + "); close sessions that are done");
      }
      perSession.merge(session, 1, Integer::sum);
      total++;
    } finally {
      lock.unlock();
    }
  }

  /** Gives back a slot taken by {@link #reserve} whose graph was not added (its import failed). */
  void release(String session) {
    lock.lock();
    try {
      perSession.computeIfPresent(session, (s, n) -> n == 1 ? null : n - 1);
      total--;
    } finally {
      lock.unlock();
    }
  }

  /** Adds a graph into a reserved slot; returns its new handle. */
  String add(String session, Executor executor) {
    String handle = "graph-" + handles.incrementAndGet();
    graphs.put(handle, new Registered(session, executor));
    return handle;
  }

  Registered get(String handle) {
    return graphs.get(handle);
  }

  void remove(String handle) {
    Registered r = graphs.remove(handle);
    if (r != null) {
      release(r.sessionHandle());
    }
  }

  int size() {
    return graphs.size();
  }

  /** A name from a request, cut short for an error message. */
  static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
