package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.proto.RecvTensorResponse;
import dev.psflow.tensor.Tensor;
import io.grpc.Drainable;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RecvTensors' messages are RecvTensor's with the key's index in front: protobuf reads them as
 * RecvTensorResponse; the reader takes the keys' tensors in any order, each one's chunks together,
 * and refuses a key out of range, a key answered twice, or chunks of two tensors interleaved.
 */
class KeyedTensorMarshallerTest {
  private static byte[] bytes(KeyedChunk c) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ((Drainable) KeyedTensorMarshaller.SENDING.stream(c)).drainTo(out);
    return out.toByteArray();
  }

  /** Every message of {@code t}'s answer as the tensor of {@code key}. */
  private static List<byte[]> messages(int key, Tensor t) throws IOException {
    List<byte[]> out = new ArrayList<>();
    for (int from = 0; ; ) {
      TensorChunk c = TensorChunk.of(t, from);
      out.add(bytes(new KeyedChunk(key, c)));
      if (c.isLast()) {
        return out;
      }
      from += c.count();
    }
  }

  @Test
  void protobufReadsAKeyedMessageAsARecvTensorResponseWithItsKey() throws Exception {
    RecvTensorResponse r = RecvTensorResponse.parseFrom(bytes(new KeyedChunk(2, TensorChunk.of(Tensor.of(new float[] {1, 2}, 2), 0))));
    assertThat(r.getKeyIndex()).isEqualTo(2);
    assertThat(r.getTensor().getTensorShape().getDim(0).getSize()).isEqualTo(2);
  }

  @Test
  void tensorsOfSeveralKeysArriveInAnyOrderAndWhole() throws Exception {
    float[] big = new float[(TensorChunk.MAX_BYTES / 4) * 2 + 10]; // three chunks
    for (int i = 0; i < big.length; i++) {
      big[i] = i * 0.5f;
    }
    Tensor small = Tensor.of(new int[] {7, 8, 9}, 3);
    Tensor words = Tensor.of(new String[] {"a", "bc"}, 2); // protobuf's own path
    List<byte[]> wire = new ArrayList<>();
    wire.addAll(messages(2, small));
    wire.addAll(messages(0, Tensor.of(big, big.length)));
    wire.addAll(messages(1, words));

    KeyedTensorMarshaller m = KeyedTensorMarshaller.receiving(TensorSizeLimit.NONE, 3);
    Tensor[] got = new Tensor[3];
    for (byte[] message : wire) {
      KeyedChunk c = m.parse(new ByteArrayInputStream(message));
      if (c.chunk().isLast()) {
        got[c.key()] = c.chunk().tensor();
      }
    }
    assertThat(wire).hasSize(5);
    assertThat(got[0].floatData()).isEqualTo(big);
    assertThat(got[1].data()).isEqualTo(new String[] {"a", "bc"});
    assertThat(got[2].intData()).containsExactly(7, 8, 9);
  }

  @Test
  void aKeyOutOfRangeIsRefused() throws Exception {
    byte[] m = bytes(new KeyedChunk(3, TensorChunk.of(Tensor.scalar(1f), 0)));
    assertRefused(KeyedTensorMarshaller.receiving(TensorSizeLimit.NONE, 3), m, "key_index 3 of a RecvTensors call for 3 keys");
  }

  @Test
  void aKeyAnsweredTwiceIsRefused() throws Exception {
    KeyedTensorMarshaller m = KeyedTensorMarshaller.receiving(TensorSizeLimit.NONE, 2);
    byte[] once = bytes(new KeyedChunk(1, TensorChunk.of(Tensor.scalar(1f), 0)));
    m.parse(new ByteArrayInputStream(once));
    assertRefused(m, once, "a second tensor for key 1");
  }

  @Test
  void chunksOfTwoTensorsInterleavedAreRefused() throws Exception {
    Tensor big = Tensor.of(new float[TensorChunk.MAX_BYTES / 4 + 1], TensorChunk.MAX_BYTES / 4 + 1);
    KeyedTensorMarshaller m = KeyedTensorMarshaller.receiving(TensorSizeLimit.NONE, 2);
    m.parse(new ByteArrayInputStream(messages(0, big).get(0)));
    assertRefused(m, bytes(new KeyedChunk(1, TensorChunk.of(Tensor.scalar(1f), 0))),
        "a chunk for key 1 while key 0's tensor is incomplete");
  }

  @Test
  void aMessageWithoutItsKeyIsRefused() throws Exception {
    byte[] plain = ((ByteArrayOutputStream) drained(TensorMarshaller.SENDING.stream(TensorChunk.of(Tensor.scalar(1f), 0)))).toByteArray();
    assertRefused(KeyedTensorMarshaller.receiving(TensorSizeLimit.NONE, 1), plain, "not key_index");
  }

  @Test
  void eachTensorIsCheckedAgainstTheReceiversLimit() throws Exception {
    byte[] m = bytes(new KeyedChunk(0, TensorChunk.of(Tensor.of(new float[1000], 1000), 0)));
    assertThatThrownBy(() -> KeyedTensorMarshaller.receiving(new TensorSizeLimit(100), 1).parse(new ByteArrayInputStream(m)))
        .isInstanceOf(StatusRuntimeException.class);
  }

  private static ByteArrayOutputStream drained(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ((Drainable) in).drainTo(out);
    return out;
  }

  private static void assertRefused(KeyedTensorMarshaller m, byte[] message, String why) {
    assertThatThrownBy(() -> m.parse(new ByteArrayInputStream(message)))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains(why);
        });
  }
}
