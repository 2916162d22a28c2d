package dev.psflow.exec;

import dev.psflow.tensor.Tensor;

/**
 * Where a Send op leaves a tensor and the matching Recv op picks it up, by key (source device,
 * destination device, tensor name, step). Send never blocks. Recv may come before or after Send;
 * its callback runs exactly once, with the tensor or with the error that aborted the rendezvous.
 */
public interface Rendezvous {
  /** Called once with the tensor, or with a non-null error. */
  @FunctionalInterface
  interface RecvCallback {
    void done(Tensor value, StatusException error);
  }

  void send(String key, Tensor value);

  void recvAsync(String key, RecvCallback callback);

  /**
   * Starts the Recvs that {@link #recvAsync} may have held back so that those waiting on the same
   * other task go out together (one call instead of one each). The executor calls it whenever it
   * has run every op that was ready, so a held-back Recv waits no longer than the ops it started
   * beside. A rendezvous that holds nothing back ignores it.
   */
  default void flush() {}

  /** Fails every pending and future Recv with {@code why}. */
  void abort(StatusException why);
}
