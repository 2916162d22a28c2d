package dev.psflow.distributed.grpc;

import dev.psflow.tensor.Tensor;

/**
 * One message of a RecvTensor answer: elements {@code [from, from + count)} of {@code tensor}. A
 * tensor of up to {@link #MAX_BYTES} goes as one chunk (from 0, every element); a larger one as
 * chunks of {@link #MAX_BYTES} in order, so no message is over that whatever the tensor's size.
 * On the sending side {@code tensor} is the tensor being sent; on the receiving side it is the
 * tensor being filled, whole once the {@link #isLast() last} chunk has arrived. Immutable (the
 * receiving side's tensor is written only before its last chunk is handed on).
 *
 * <pre>{@code
 * for (int from = 0; ; ) {
 *   TensorChunk c = TensorChunk.of(t, from);
 *   out.onNext(c);   // ChunkedSend does this as flow control allows
 *   if (c.isLast()) break;
 *   from += c.count();
 * }
 * }</pre>
 */
record TensorChunk(Tensor tensor, int from, int count) {
  /**
   * The most content bytes one message carries: large enough that the per-message cost vanishes
   * against the copy (about a millisecond a chunk), small enough that each side holds a few at
   * most. Tensors up to this size cross in one message, exactly as a unary RecvTensor would.
   */
  static final int MAX_BYTES = 4 << 20;

  /** The chunk of {@code t} that starts at element {@code from}. */
  static TensorChunk of(Tensor t, int from) {
    int per = elementsPerChunk(t);
    return new TensorChunk(t, from, Math.min(per, t.size() - from));
  }

  /** Elements per chunk of {@code t}: all of them for a tensor that is not plain numbers (one protobuf message). */
  static int elementsPerChunk(Tensor t) {
    return TensorMarshaller.isPlain(t.dtype()) ? MAX_BYTES / t.dtype().byteSize() : Math.max(1, t.size());
  }

  boolean isFirst() {
    return from == 0;
  }

  boolean isLast() {
    return from + count == tensor.size();
  }
}
