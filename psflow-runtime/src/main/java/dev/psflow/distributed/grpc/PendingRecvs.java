package dev.psflow.distributed.grpc;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the RecvTensor calls each peer has waiting on a worker, up to a cap
 * ({@code max_pending_recvs_per_peer}). A slot is held until the worker has dropped the call's
 * state (answered, failed, swept, or forgotten when the caller cancelled), not merely until the
 * call ends. Thread-safe.
 */
final class PendingRecvs {
  private final int maxPerPeer;
  private final Map<String, Integer> byPeer = new ConcurrentHashMap<>();

  PendingRecvs(int maxPerPeer) {
    this.maxPerPeer = maxPerPeer;
  }

  int max() {
    return maxPerPeer;
  }

  /** Takes a slot for {@code peer}; false when it has {@link #max()} already. */
  boolean tryAcquire(String peer) {
    boolean[] ok = {false};
    byPeer.compute(peer, (p, n) -> {
      int now = n == null ? 0 : n;
      if (now >= maxPerPeer) {
        return n;
      }
      ok[0] = true;
      return now + 1;
    });
    return ok[0];
  }

  void release(String peer) {
    byPeer.computeIfPresent(peer, (p, n) -> n == 1 ? null : n - 1);
  }

  /** Slots {@code peer} holds (for tests). */
  int pending(String peer) {
    return byPeer.getOrDefault(peer, 0);
  }
}
