package dev.psflow.distributed.grpc;

import dev.psflow.tensor.Tensor;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayDeque;
import java.util.function.BiFunction;

/**
 * Sends one RecvTensor answer as {@link TensorChunk}s (or a RecvTensors answer, several tensors, as
 * {@link KeyedChunk}s), as fast as the caller reads and no faster: the first chunk of a tensor goes
 * at once (a tensor of one chunk crosses exactly as a unary answer would), each later one only
 * while gRPC's flow control says the call {@link ServerCallStreamObserver#isReady is ready},
 * resumed by its onReady handler. So the sender holds the tensors and a chunk or two in gRPC's
 * buffers, never a copy of a whole one. Several tensors go in the order they were started, each
 * whole before the next; the answer ends after the last. A step aborted here, or a caller that
 * cancels, stops it between chunks. Nothing here waits: every method returns once it has sent what
 * it may. Thread-safe (the tensors' arrival, onReady, cancellation and abort come on different
 * threads).
 *
 * <pre>{@code
 * ChunkedSend<TensorChunk> send = ChunkedSend.of(out);
 * out.setOnReadyHandler(send::pump);
 * out.setOnCancelHandler(send::cancel);
 * pulled.whenComplete((t, e) -> { if (e != null) send.fail(e); else send.start(t); });
 * }</pre>
 */
final class ChunkedSend<M> {
  private final ServerCallStreamObserver<M> out;
  private final BiFunction<Integer, TensorChunk, M> message;
  private final int tensors;
  /** Tensors started and not yet begun. */
  private final ArrayDeque<Started> waiting = new ArrayDeque<>();
  private int key;
  private Tensor tensor;
  private int next;
  private int sent;
  private boolean done;
  private Runnable onDone;

  private record Started(int key, Tensor tensor) {}

  private ChunkedSend(ServerCallStreamObserver<M> out, BiFunction<Integer, TensorChunk, M> message, int tensors) {
    this.out = out;
    this.message = message;
    this.tensors = tensors;
  }

  /** RecvTensor's answer: one tensor. */
  static ChunkedSend<TensorChunk> of(ServerCallStreamObserver<TensorChunk> out) {
    return new ChunkedSend<>(out, (k, c) -> c, 1);
  }

  /** RecvTensors' answer: {@code tensors} tensors, each named by its key. */
  static ChunkedSend<KeyedChunk> keyed(ServerCallStreamObserver<KeyedChunk> out, int tensors) {
    return new ChunkedSend<>(out, KeyedChunk::new, tensors);
  }

  /** Starts sending {@code t}, RecvTensor's one tensor. */
  void start(Tensor t) {
    start(0, t);
  }

  /** Starts sending {@code t} as the tensor of key {@code k}, after those started before it. */
  synchronized void start(int k, Tensor t) {
    if (done) {
      return;
    }
    waiting.add(new Started(k, t));
    if (tensor == null) {
      pump();
    }
  }

  /** Sends the chunks flow control allows now; called on start and whenever the call becomes ready. */
  synchronized void pump() {
    try {
      while (!done) {
        if (tensor == null) {
          Started w = waiting.poll();
          if (w == null) {
            return;
          }
          key = w.key();
          tensor = w.tensor();
          next = 0;
        }
        if (next != 0 && !out.isReady()) {
          return;
        }
        TensorChunk c = TensorChunk.of(tensor, next);
        out.onNext(message.apply(key, c));
        next += c.count();
        if (c.isLast()) {
          tensor = null;
          if (++sent == tensors) {
            finish();
            out.onCompleted();
          }
        }
      }
    } catch (RuntimeException e) {
      finish(); // the caller went away (cancelled, deadline) while we sent: nothing more to deliver
    }
  }

  /** Ends the answer with {@code why} (a pull failed, or the step was aborted mid-transfer). */
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

  /** The caller cancelled or went away: stop, and let the tensors go. */
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
    waiting.clear();
    if (onDone != null) {
      Runnable r = onDone;
      onDone = null;
      r.run();
    }
  }
}
