package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.tensor.Tensor;
import io.grpc.KnownLength;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Fuzzes the reader of RecvTensor responses ({@link TensorMarshaller#parse}, reached through
 * a call's {@link TensorWire#recvTensor} descriptor), which decodes a peer's bytes straight into a new tensor's
 * array: any byte string either decodes to a tensor that survives a round trip through the
 * marshaller, or fails with an INVALID_ARGUMENT status (RESOURCE_EXHAUSTED for a
 * shape over the receiver's limit); nothing else escapes (no other
 * RuntimeException, no OutOfMemoryError from a declared length, no hang). Corpus:
 * {@code src/test/resources/dev/psflow/distributed/grpc/TensorMarshallerFuzzTestInputs/parse/}.
 */
class TensorMarshallerFuzzTest {
  /** The receiver's max_tensor_bytes: a shape announcing more is refused before anything is allocated. */
  private static final TensorSizeLimit LIMIT = new TensorSizeLimit(16 << 20);

  /** What gRPC hands a marshaller: a stream of one whole message that knows its length. */
  private static final class MessageStream extends ByteArrayInputStream implements KnownLength {
    MessageStream(byte[] bytes) {
      super(bytes);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void parse(byte[] bytes) throws IOException {
    Tensor t;
    try {
      TensorChunk c = TensorMarshaller.receiving(LIMIT).parse(new MessageStream(bytes));
      if (!c.isLast()) {
        return; // the first chunk of a larger tensor: later messages would fill it
      }
      t = c.tensor();
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).as(e.getMessage()).isIn(Status.Code.INVALID_ARGUMENT, Status.Code.RESOURCE_EXHAUSTED);
      return;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    InputStream s = TensorWire.RECV_TENSOR.streamResponse(TensorChunk.of(t, 0));
    if (s instanceof io.grpc.Drainable d) {
      d.drainTo(out);
    } else {
      s.transferTo(out);
    }
    assertThat(TensorMarshaller.receiving(LIMIT).parse(new MessageStream(out.toByteArray())).tensor()).isEqualTo(t);
  }

  /**
   * The same for a RecvTensors answer's message ({@link KeyedTensorMarshaller#parse}, a call for
   * three keys): a key_index, then what {@link #parse} reads. Corpus: {@code .../parseKeyed/}.
   */
  @FuzzTest(maxDuration = "5m")
  void parseKeyed(byte[] bytes) throws IOException {
    KeyedChunk c;
    try {
      c = KeyedTensorMarshaller.receiving(LIMIT, 3).parse(new MessageStream(bytes));
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).as(e.getMessage()).isIn(Status.Code.INVALID_ARGUMENT, Status.Code.RESOURCE_EXHAUSTED);
      return;
    }
    assertThat(c.key()).isBetween(0, 2);
    if (!c.chunk().isLast()) {
      return;
    }
    Tensor t = c.chunk().tensor();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ((io.grpc.Drainable) TensorWire.RECV_TENSORS.streamResponse(new KeyedChunk(c.key(), TensorChunk.of(t, 0)))).drainTo(out);
    KeyedChunk again = KeyedTensorMarshaller.receiving(LIMIT, 3).parse(new MessageStream(out.toByteArray()));
    assertThat(again.key()).isEqualTo(c.key());
    assertThat(again.chunk().tensor()).isEqualTo(t);
  }
}
