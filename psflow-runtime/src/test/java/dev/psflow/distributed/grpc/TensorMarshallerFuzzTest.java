package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
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
 * {@link TensorWire#RECV_TENSOR}), which decodes a peer's bytes straight into a new tensor's
 * array: any byte string either decodes to a tensor that survives a round trip through the
 * marshaller, or fails with an INVALID_ARGUMENT status; nothing else escapes (no other
 * RuntimeException, no OutOfMemoryError from a declared length, no hang). Corpus:
 * {@code src/test/resources/dev/psflow/distributed/grpc/TensorMarshallerFuzzTestInputs/parse/}.
 */
class TensorMarshallerFuzzTest {
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
      t = TensorWire.RECV_TENSOR.parseResponse(new MessageStream(bytes));
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).as(e.getMessage()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      return;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    InputStream s = TensorWire.RECV_TENSOR.streamResponse(t);
    if (s instanceof io.grpc.Drainable d) {
      d.drainTo(out);
    } else {
      s.transferTo(out);
    }
    assertThat(TensorWire.RECV_TENSOR.parseResponse(new MessageStream(out.toByteArray()))).isEqualTo(t);
  }
}
