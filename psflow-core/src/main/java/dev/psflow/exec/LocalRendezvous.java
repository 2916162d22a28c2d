package dev.psflow.exec;

import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A rendezvous within one process for one step: a table from key to either a sent tensor waiting
 * for its Recv or a Recv waiting for its tensor. Each key is used once per step. Thread-safe;
 * callbacks run on the thread that completes the pair (the sender's or the receiver's), outside the lock.
 */
public final class LocalRendezvous implements Rendezvous {
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, Tensor> sent = new HashMap<>();
  private final Map<String, RecvCallback> waiting = new HashMap<>();
  private StatusException aborted;

  @Override
  public void send(String key, Tensor value) {
    RecvCallback cb;
    lock.lock();
    try {
      if (aborted != null) {
        return;
      }
      cb = waiting.remove(key);
      if (cb == null) {
        if (sent.putIfAbsent(key, value) != null) {
          throw StatusException.internal("duplicate send of " + key, null);
        }
        return;
      }
    } finally {
      lock.unlock();
    }
    cb.done(value, null);
  }

  @Override
  public void recvAsync(String key, RecvCallback callback) {
    Tensor value;
    StatusException error;
    lock.lock();
    try {
      error = aborted;
      value = error == null ? sent.remove(key) : null;
      if (error == null && value == null) {
        if (waiting.putIfAbsent(key, callback) != null) {
          throw StatusException.internal("duplicate recv of " + key, null);
        }
        return;
      }
    } finally {
      lock.unlock();
    }
    callback.done(value, error);
  }

  @Override
  public void abort(StatusException why) {
    List<RecvCallback> fail;
    lock.lock();
    try {
      if (aborted != null) {
        return;
      }
      aborted = why;
      fail = new ArrayList<>(waiting.values());
      waiting.clear();
      sent.clear();
    } finally {
      lock.unlock();
    }
    for (RecvCallback cb : fail) {
      cb.done(null, why);
    }
  }

  /** Forgets a Recv still waiting for {@code key} (its caller went away); true if there was one. */
  public boolean forgetRecv(String key) {
    lock.lock();
    try {
      return waiting.remove(key) != null;
    } finally {
      lock.unlock();
    }
  }

  /** The number of sent tensors not yet received (for tests and leak checks). */
  public int pendingSends() {
    lock.lock();
    try {
      return sent.size();
    } finally {
      lock.unlock();
    }
  }
}
