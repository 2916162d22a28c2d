package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.graph.TensorProtos;
import dev.psflow.proto.RecvTensorResponse;
import dev.psflow.tensor.Tensor;
import io.grpc.Drainable;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * RecvTensor's marshaller writes protobuf's exact bytes and reads any protobuf encoding of them;
 * a tensor over a chunk crosses as several messages, none over a chunk, and the reader allocates
 * only what the receiver's limit allows and writes only inside the announced tensor.
 */
class TensorMarshallerTest {
  /** Marshals whole tensors of one message, and parses each message as a new call's first. */
  private static final class OneMessage {
    InputStream stream(Tensor t) {
      return TensorMarshaller.SENDING.stream(TensorChunk.of(t, 0));
    }

    Tensor parse(InputStream in) {
      TensorChunk c = TensorMarshaller.receiving(TensorSizeLimit.NONE).parse(in);
      assertThat(c.isLast()).as("one message holds the whole tensor").isTrue();
      return c.tensor();
    }
  }

  private static final OneMessage M = new OneMessage();

  private static List<Tensor> tensors() {
    Random r = new Random(7);
    float[] big = new float[100_000]; // several of the marshaller's chunks
    for (int i = 0; i < big.length; i++) {
      big[i] = r.nextFloat() - 0.5f;
    }
    return List.of(
        Tensor.of(big, 1000, 100),
        Tensor.of(new double[] {1.5, -2.25, Double.MIN_VALUE}, 3),
        Tensor.of(new int[] {1, -2, Integer.MAX_VALUE, 0}, 2, 2),
        Tensor.of(new long[] {Long.MIN_VALUE, 42}, 2),
        Tensor.scalar(3.5f),
        Tensor.of(new float[0], 0, 5),
        Tensor.of(new String[] {"a", "bc"}, 2),
        Tensor.of(new boolean[] {true, false, true}, 3));
  }

  @Test
  void theBytesOnTheWireAreProtobufsOwn() throws IOException {
    for (Tensor t : tensors()) {
      byte[] ours = drain(M.stream(t));
      byte[] protobufs = RecvTensorResponse.newBuilder().setTensor(TensorProtos.toProto(t)).build().toByteArray();
      assertThat(ours).as("%s", t).isEqualTo(protobufs);
    }
  }

  @Test
  void everyTensorComesBackEqual() throws IOException {
    for (Tensor t : tensors()) {
      assertThat(M.parse(new ByteArrayInputStream(drain(M.stream(t))))).as("%s", t).isEqualTo(t);
    }
  }

  @Test
  void itReadsProtobufsEncodingWhateverTheFieldOrder() {
    Tensor t = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
    byte[] normal = RecvTensorResponse.newBuilder().setTensor(TensorProtos.toProto(t)).build().toByteArray();
    assertThat(M.parse(new ByteArrayInputStream(normal))).isEqualTo(t);
    // tensor_content before dtype: decoded through protobuf, still equal
    var p = TensorProtos.toProto(t);
    byte[] contentFirst = concat(
        new byte[] {0x0a}, varint(p.getSerializedSize()),
        new byte[] {0x22}, varint(p.getTensorContent().size()), p.getTensorContent().toByteArray(),
        new byte[] {0x08}, varint(p.getDtypeValue()),
        new byte[] {0x12}, varint(p.getTensorShape().getSerializedSize()), p.getTensorShape().toByteArray());
    assertThat(M.parse(new ByteArrayInputStream(contentFirst))).isEqualTo(t);
  }

  @Test
  void malformedBytesAreInvalidArgumentNamingTheProblem() throws IOException {
    byte[] good = drain(M.stream(Tensor.of(new float[] {1, 2, 3, 4}, 2, 2)));
    byte[] truncated = java.util.Arrays.copyOf(good, good.length - 3);
    assertThatThrownBy(() -> M.parse(new ByteArrayInputStream(truncated)))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
        .hasMessageContaining("ends");
    assertThatThrownBy(() -> M.parse(new ByteArrayInputStream(new byte[] {0x10, 0x01})))
        .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("RecvTensorResponse has field 2");
  }

  private static byte[] drain(InputStream s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (s instanceof Drainable d) {
      int n = d.drainTo(out);
      assertThat(n).isEqualTo(out.size());
    } else {
      s.transferTo(out);
    }
    return out.toByteArray();
  }

  private static byte[] varint(long v) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** gRPC's message streams know their length; a declared length past it is refused before any allocation. */
  @Test
  void aDeclaredLengthLongerThanTheMessageAllocatesNothing() {
    final class Message extends ByteArrayInputStream implements io.grpc.KnownLength {
      Message(byte[] b) {
        super(b);
      }
    }
    // tensor{dtype: DT_FLOAT, tensor_content: <2147483640 bytes declared, none sent>}
    byte[] bomb = {0x0a, 0x08, 0x08, 0x01, 0x22, (byte) 0xf8, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07};
    assertThatThrownBy(() -> M.parse(new Message(bomb)))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
        .hasMessageContaining("a field of 2147483640 bytes");
  }

  @Test
  void aTensorOverAChunkCrossesAsProtobufMessagesOfAChunkEach() throws IOException {
    int n = TensorChunk.MAX_BYTES / 4 * 2 + 1000; // two whole chunks and a bit
    float[] data = new float[n];
    for (int i = 0; i < n; i++) {
      data[i] = i * 0.25f - 7;
    }
    Tensor t = Tensor.of(data, n);
    var proto = TensorProtos.toProto(t);
    TensorMarshaller receiving = TensorMarshaller.receiving(TensorSizeLimit.NONE);
    Tensor received = null;
    int messages = 0;
    for (int from = 0; from < n; messages++) {
      TensorChunk c = TensorChunk.of(t, from);
      byte[] wire = drain(TensorMarshaller.SENDING.stream(c));
      assertThat(wire.length).isLessThanOrEqualTo(TensorChunk.MAX_BYTES + 64);
      ByteString content = proto.getTensorContent().substring(from * 4, (from + c.count()) * 4);
      RecvTensorResponse expected = from == 0
          ? RecvTensorResponse.newBuilder().setTensor(proto.toBuilder().setTensorContent(content)).build()
          : RecvTensorResponse.newBuilder().setContentChunk(content).build();
      assertThat(wire).isEqualTo(expected.toByteArray());
      TensorChunk got = receiving.parse(new ByteArrayInputStream(wire));
      assertThat(got.from()).isEqualTo(from);
      assertThat(got.isLast()).isEqualTo(from + c.count() == n);
      received = got.tensor();
      from += c.count();
    }
    assertThat(messages).isEqualTo(3);
    assertThat(received).isEqualTo(t);
  }

  @Test
  void aTensorAnnouncedOverTheReceiversLimitIsRefusedBeforeItIsAllocated() throws IOException {
    // the first chunk of a 1 GiB tensor: the receiver takes at most 1 MB
    Tensor t = Tensor.of(new float[TensorChunk.MAX_BYTES / 4], TensorChunk.MAX_BYTES / 4);
    byte[] first = RecvTensorResponse.newBuilder().setTensor(TensorProtos.toProto(t).toBuilder()
        .setTensorShape(TensorProtos.toProto(dev.psflow.tensor.Shape.of(1 << 28)))).build().toByteArray();
    assertThatThrownBy(() -> TensorMarshaller.receiving(new TensorSizeLimit(1 << 20)).parse(new ByteArrayInputStream(first)))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED))
        .hasMessageContaining("max_tensor_bytes");
  }

  @Test
  void aPeerCannotWritePastTheAnnouncedTensorNorAfterIt() throws IOException {
    TensorMarshaller receiving = TensorMarshaller.receiving(TensorSizeLimit.NONE);
    // shape [3], first message 2 elements, then a chunk of 2: one too many
    byte[] first = RecvTensorResponse.newBuilder().setTensor(TensorProtos.toProto(Tensor.of(new float[] {1, 2, 3}, 3))
        .toBuilder().setTensorContent(ByteString.copyFrom(new byte[8]))).build().toByteArray();
    assertThat(receiving.parse(new ByteArrayInputStream(first)).isLast()).isFalse();
    byte[] tooMuch = RecvTensorResponse.newBuilder().setContentChunk(ByteString.copyFrom(new byte[8])).build().toByteArray();
    assertThatThrownBy(() -> receiving.parse(new ByteArrayInputStream(tooMuch)))
        .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("a content_chunk of 2 elements, but 1 of the tensor's 3 are left");
    byte[] rest = RecvTensorResponse.newBuilder().setContentChunk(ByteString.copyFrom(new byte[4])).build().toByteArray();
    assertThat(receiving.parse(new ByteArrayInputStream(rest)).isLast()).isTrue();
    assertThatThrownBy(() -> receiving.parse(new ByteArrayInputStream(rest)))
        .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("a message after the tensor's last bytes");
  }
}
