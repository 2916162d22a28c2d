package dev.psflow.distributed.grpc;

import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.Locale;

/**
 * The size wall left on the wire. A tensor pulled between tasks (RecvTensor) streams in chunks,
 * whatever its size; but a client's feeds and fetches, and the master's feeds and fetches of each
 * task's partition, cross whole in one RunStep or RunGraph message, and protobuf holds at most
 * 2 GiB in one. Those are refused before anything is encoded, with RESOURCE_EXHAUSTED saying what
 * to do, rather than failing somewhere inside protobuf. Stateless.
 *
 * <pre>{@code
 * WholeMessages.check("the feeds of RunStep", feeds);   // RESOURCE_EXHAUSTED over 2 GiB - 1 MiB
 * }</pre>
 */
final class WholeMessages {
  /** The most tensor bytes one message carries: protobuf's 2 GiB, less room for names and stats. */
  static final long MAX_BYTES = Integer.MAX_VALUE - (1L << 20);

  private WholeMessages() {}

  static void check(String what, List<Tensor> tensors) {
    check(what, tensors, MAX_BYTES);
  }

  static void check(String what, List<Tensor> tensors, long max) {
    long bytes = 0;
    for (Tensor t : tensors) {
      bytes += (long) t.size() * (t.dtype().byteSize() > 0 ? t.dtype().byteSize() : 8);
    }
    if (bytes > max) {
      throw new StatusException(Code.RESOURCE_EXHAUSTED, String.format(Locale.ROOT, "%s take %,d bytes, more than "
          + "the %,d one message may carry: feeds and fetches cross whole in one protobuf message (2 GiB at most), "
          + "only tensors pulled between tasks go in chunks; keep a tensor this large in a variable on a ps and "
          + "use it there, or feed and fetch it in slices", what, bytes, max));
    }
  }
}
