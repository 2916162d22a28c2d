package dev.psflow.distributed.grpc;

import dev.psflow.tensor.Tensor;
import io.grpc.stub.ServerCallStreamObserver;

/**
 * Sends one RecvTensor answer as {@link TensorChunk}s, as fast as the caller reads and no faster:
 * the first chunk goes at once (a tensor of one chunk crosses exactly as a unary answer would),
 * each later one only while gRPC's flow control says the call {@link ServerCallStreamObserver#isReady
 * is ready}, resumed by its onReady handler. So the sender holds the tensor itself and a chunk or
 * two in gRPC's buffers, never a copy of the whole. A step aborted here, or a caller that cancels,
 * stops it between chunks. Nothing here waits: every method returns once it has sent what it may.
 * Thread-safe (the tensor's arrival, onReady, cancellation and abort come on different threads).
 *
 * <pre>{@code
 * ChunkedSend send = new ChunkedSend(out);
 * out.setOnReadyHandler(send::pump);
 * out.setOnCancelHandler(send::cancel);
 * pulled.whenComplete((t, e) -> { if (e != null) send.fail(e); else send.start(t); });
 * }</pre>
 */
final class ChunkedSend {
  private final ServerCallStreamObserver<TensorChunk> out;
  private Tensor tensor;
  private int next;
  private boolean done;
  private Runnable onDone;

  ChunkedSend(ServerCallStreamObserver<TensorChunk> out) {
    this.out = out;
  }

  /** Starts sending {@code t}. */
  synchronized void start(Tensor t) {
    if (!done) {
      tensor = t;
      pump();
    }
  }

  /** Sends the chunks flow control allows now; called on start and whenever the call becomes ready. */
  synchronized void pump() {
    if (tensor == null) {
      return;
    }
    try {
      while (!done && (next == 0 || out.isReady())) {
        TensorChunk c = TensorChunk.of(tensor, next);
        out.onNext(c);
        next += c.count();
        if (c.isLast()) {
          finish();
          out.onCompleted();
        }
      }
    } catch (RuntimeException e) {
      finish(); // the caller went away (cancelled, deadline) while we sent: nothing more to deliver
    }
  }

  /** Ends the answer with {@code why} (the pull failed, or the step was aborted mid-transfer). */
  synchronized void fail(Throwable why) {
    if (done) {
      return;
    }
    finish();
    try {
      out.onError(StatusMapping.toGrpc(why));
    } catch (RuntimeException ignored) {
      // the caller went away already
    }
  }

  /** The caller cancelled or went away: stop, and let the tensor go. */
  synchronized void cancel() {
    finish();
  }

  /** Runs {@code r} once the answer has ended, however (now if it has). */
  synchronized void whenDone(Runnable r) {
    if (done) {
      r.run();
    } else {
      onDone = r;
    }
  }

  private void finish() {
    done = true;
    tensor = null;
    if (onDone != null) {
      Runnable r = onDone;
      onDone = null;
      r.run();
    }
  }
}
