package dev.psflow.distributed.grpc;

import static dev.psflow.distributed.grpc.TensorMarshaller.BUFFER;
import static dev.psflow.distributed.grpc.TensorMarshaller.BUFFERS;
import static dev.psflow.distributed.grpc.TensorMarshaller.DTYPE;
import static dev.psflow.distributed.grpc.TensorMarshaller.LENGTH_DELIMITED;
import static dev.psflow.distributed.grpc.TensorMarshaller.RESPONSE_CONTENT_CHUNK;
import static dev.psflow.distributed.grpc.TensorMarshaller.RESPONSE_KEY_INDEX;
import static dev.psflow.distributed.grpc.TensorMarshaller.RESPONSE_TENSOR;
import static dev.psflow.distributed.grpc.TensorMarshaller.TENSOR_CONTENT;
import static dev.psflow.distributed.grpc.TensorMarshaller.TENSOR_SHAPE;
import static dev.psflow.distributed.grpc.TensorMarshaller.VARINT;
import static dev.psflow.distributed.grpc.TensorMarshaller.isPlain;

import com.google.protobuf.CodedOutputStream;
import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.graph.TensorProtos;
import dev.psflow.proto.TensorProto;
import dev.psflow.proto.TensorShapeProto;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import io.grpc.HasByteBuffer;
import io.grpc.KnownLength;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.BitSet;

/**
 * Reads one RecvTensor answer (or a RecvTensors answer, {@link #readKeyed}), message by message:
 * numeric tensor_content and content_chunk bytes go straight into the tensor's array, every other
 * field is merged into a TensorProto for protobuf's own decoding. The array is allocated once, at
 * the size the first message's shape announces, after checking it against the receiver's {@code
 * max_tensor_bytes}; a peer cannot make it allocate more than that, nor write past it (each chunk
 * must fit in what is left). Holds the state of one call: not thread-safe, and gRPC hands it one
 * message at a time.
 */
final class TensorReader {
  private final TensorSizeLimit limit;
  /** The tensor being filled by later messages; null before the first message and once whole. */
  private Tensor filling;
  private int filled;
  private boolean whole;
  /** RecvTensors: the key of the tensor being filled, and the keys whose tensors are whole. */
  private int fillingKey = -1;
  private final BitSet answered = new BitSet();
  // the message being read
  private InputStream in;
  private long read;
  /** Where the tensor field ends (bytes from the start), -1 before it begins. */
  private long end;

  TensorReader(TensorSizeLimit limit) {
    this.limit = limit;
  }

  /** The next message's chunk; its tensor is whole once {@link TensorChunk#isLast()}. */
  TensorChunk read(InputStream message) throws IOException {
    if (whole) {
      throw new IllegalArgumentException("a message after the tensor's last bytes");
    }
    begin(message);
    TensorChunk c = next();
    whole = c.isLast();
    return c;
  }

  /**
   * The next message of a RecvTensors answer to {@code keys} keys: its key_index, then a chunk as
   * {@link #read} reads it. Tensors follow one another, each key's once, the chunks of one together.
   */
  KeyedChunk readKeyed(InputStream message, int keys) throws IOException {
    begin(message);
    long tag = varint();
    if (tag != ((RESPONSE_KEY_INDEX << 3) | VARINT)) {
      throw new IllegalArgumentException("a RecvTensors message starts with tag " + tag + ", not key_index");
    }
    long key = varint();
    if (key < 0 || key >= keys) {
      throw new IllegalArgumentException("key_index " + key + " of a RecvTensors call for " + keys + " keys");
    }
    if (filling != null ? key != fillingKey : answered.get((int) key)) {
      throw new IllegalArgumentException(filling != null
          ? "a chunk for key " + key + " while key " + fillingKey + "'s tensor is incomplete"
          : "a second tensor for key " + key);
    }
    TensorChunk c = next();
    fillingKey = (int) key;
    if (c.isLast()) {
      answered.set((int) key);
    }
    return new KeyedChunk((int) key, c);
  }

  private void begin(InputStream message) {
    in = message;
    read = 0;
    end = -1;
  }

  private TensorChunk next() throws IOException {
    return filling == null ? first() : later();
  }

  private TensorChunk first() throws IOException {
    TensorProto.Builder other = TensorProto.newBuilder();
    Object content = null;
    int count = 0;
    int dtypeNumber = 0;
    TensorShapeProto shape = null;
    while (true) {
      long tag = end < 0 ? varintOrEnd() : (read < end ? varint() : -1);
      if (tag < 0) {
        break;
      }
      int field = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      if (end < 0) {
        // the outer message: only the tensor field, whose length bounds the fields below
        if (field != RESPONSE_TENSOR || wire != LENGTH_DELIMITED) {
          throw new IllegalArgumentException("a RecvTensorResponse has field " + field + " of wire type " + wire);
        }
        long len = varint();
        requireFollowing(len);
        end = read + len;
        continue;
      }
      if (field == DTYPE && wire == 0) {
        dtypeNumber = (int) varint();
      } else if (field == TENSOR_SHAPE && wire == LENGTH_DELIMITED) {
        shape = TensorShapeProto.parseFrom(bytes(varint()));
      } else if (field == TENSOR_CONTENT && wire == LENGTH_DELIMITED && content == null
          && dtypeNumber != 0 && isPlain(TensorProtos.fromProto(dtypeNumber))) {
        DType dtype = TensorProtos.fromProto(dtypeNumber);
        count = elements(dtype, varint());
        // canonical order puts the shape first: allocate the whole tensor now and fill it as chunks come
        long total = shape == null ? -1 : announced(dtype, TensorProtos.fromProto(shape));
        if (count > total && total >= 0) {
          throw new IllegalArgumentException("tensor_content holds " + count + " " + dtype
              + " elements but the shape is " + TensorProtos.fromProto(shape));
        }
        content = allocate(dtype, total >= 0 ? (int) total : count);
        fill(dtype, content, 0, count);
      } else {
        other.mergeFrom(rawField(field, wire));
      }
    }
    if (end >= 0 && read != end) {
      throw new IllegalArgumentException("the tensor field ends at byte " + read + ", not " + end);
    }
    if (content == null) {
      Tensor t = TensorProtos.fromProto(other.setDtypeValue(dtypeNumber)
          .setTensorShape(shape == null ? TensorShapeProto.getDefaultInstance() : shape).build());
      return new TensorChunk(t, 0, t.size());
    }
    DType dtype = TensorProtos.fromProto(dtypeNumber);
    Shape s = TensorProtos.fromProto(shape == null ? TensorShapeProto.getDefaultInstance() : shape);
    long total = announced(dtype, s);
    if (count > total) {
      throw new IllegalArgumentException("tensor_content holds " + count + " " + dtype + " elements but the shape is " + s);
    }
    if (Array.getLength(content) != total) { // the shape came after the content: move it into the whole tensor
      Object all = allocate(dtype, (int) total);
      System.arraycopy(content, 0, all, 0, count);
      content = all;
    }
    Tensor t = Tensor.wrap(dtype, s, content);
    if (count < total) {
      filling = t;
      filled = count;
    }
    return new TensorChunk(t, 0, count);
  }

  /** A later message: {@code content_chunk}, the next bytes of the tensor being filled. */
  private TensorChunk later() throws IOException {
    long tag = varintOrEnd();
    if (tag != ((RESPONSE_CONTENT_CHUNK << 3) | LENGTH_DELIMITED)) {
      throw new IllegalArgumentException("a later RecvTensorResponse of a chunked tensor has tag " + tag
          + ", not content_chunk");
    }
    DType dtype = filling.dtype();
    int count = elements(dtype, varint());
    int from = filled;
    if (count > filling.size() - from) {
      throw new IllegalArgumentException("a content_chunk of " + count + " elements, but " + (filling.size() - from)
          + " of the tensor's " + filling.size() + " are left");
    }
    fill(dtype, filling.data(), from, count);
    if (varintOrEnd() >= 0) {
      throw new IllegalArgumentException("a later RecvTensorResponse has fields after content_chunk");
    }
    TensorChunk c = new TensorChunk(filling, from, count);
    filled += count;
    if (filled == filling.size()) {
      filling = null;
    }
    return c;
  }

  /** The elements {@code shape} announces, once checked against the receiver's limit (before anything is allocated). */
  private long announced(DType dtype, Shape shape) {
    if (!shape.isFullyDefined()) {
      throw new IllegalArgumentException("a tensor with content has the partial shape " + shape);
    }
    limit.check("the tensor received", dtype, shape);
    return TensorSizeLimit.elements(shape);
  }

  /** Elements in {@code bytes} of {@code dtype}, checked to be whole and to follow in the message. */
  private int elements(DType dtype, long bytes) throws IOException {
    int width = dtype.byteSize();
    if (bytes < 0 || bytes % width != 0 || bytes / width > TensorSizeLimit.MAX_ELEMENTS) {
      throw new IllegalArgumentException("tensor content of " + bytes + " bytes is no whole number of " + dtype);
    }
    requireFollowing(bytes);
    return (int) (bytes / width);
  }

  private static Object allocate(DType dtype, int n) {
    return switch (dtype) {
      case FLOAT32 -> new float[n];
      case FLOAT64 -> new double[n];
      case INT32 -> new int[n];
      case INT64 -> new long[n];
      default -> throw new AssertionError(dtype);
    };
  }

  /**
   * Reads {@code count} little-endian elements into {@code array} from {@code from}: straight out
   * of gRPC's buffers where the stream lends them ({@link HasByteBuffer}), else through a small
   * buffer. An element split between two of gRPC's buffers goes through the small buffer.
   */
  private void fill(DType dtype, Object array, int from, int count) throws IOException {
    int width = dtype.byteSize();
    int to = from + count;
    int i = from;
    if (in instanceof HasByteBuffer lender && lender.byteBufferSupported()) {
      while (i < to) {
        ByteBuffer lent = lender.getByteBuffer();
        int m = lent == null ? 0 : Math.min(to - i, lent.remaining() / width);
        if (m == 0) {
          copy(dtype, array, i, 1); // none lent here, or an element split between two buffers
          i++;
          continue;
        }
        convert(dtype, lent.slice().order(ByteOrder.LITTLE_ENDIAN), array, i, m);
        long skipped = in.skip((long) m * width);
        if (skipped != (long) m * width) {
          throw new IllegalStateException("gRPC's stream skipped " + skipped + " of " + m * width + " bytes it lent");
        }
        read += skipped;
        i += m;
      }
      return;
    }
    copy(dtype, array, i, to - i);
  }

  /** Reads {@code count} elements through a small buffer. */
  private void copy(DType dtype, Object array, int from, int count) throws IOException {
    int width = dtype.byteSize();
    byte[] chunk = BUFFERS.get();
    ByteBuffer buf = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
    int perBuffer = BUFFER / width;
    int to = from + count;
    for (int i = from; i < to; i += perBuffer) {
      int m = Math.min(perBuffer, to - i);
      readFully(chunk, m * width);
      buf.clear();
      convert(dtype, buf, array, i, m);
    }
  }

  private static void convert(DType dtype, ByteBuffer bytes, Object array, int at, int m) {
    switch (dtype) {
      case FLOAT32 -> bytes.asFloatBuffer().get((float[]) array, at, m);
      case FLOAT64 -> bytes.asDoubleBuffer().get((double[]) array, at, m);
      case INT32 -> bytes.asIntBuffer().get((int[]) array, at, m);
      case INT64 -> bytes.asLongBuffer().get((long[]) array, at, m);
      default -> throw new AssertionError(dtype);
    }
  }

  /** A field this reader does not decode itself, re-encoded for TensorProto.Builder.mergeFrom. */
  private byte[] rawField(int field, int wire) throws IOException {
    byte[] value = switch (wire) {
      case 0 -> {
        long v = varint();
        byte[] b = new byte[CodedOutputStream.computeUInt64SizeNoTag(v)];
        CodedOutputStream o = CodedOutputStream.newInstance(b);
        o.writeUInt64NoTag(v);
        yield b;
      }
      case 1 -> bytes(8);
      case 5 -> bytes(4);
      case LENGTH_DELIMITED -> {
        byte[] payload = bytes(varint());
        byte[] b = new byte[CodedOutputStream.computeUInt32SizeNoTag(payload.length) + payload.length];
        CodedOutputStream o = CodedOutputStream.newInstance(b);
        o.writeUInt32NoTag(payload.length);
        o.writeRawBytes(payload);
        yield b;
      }
      default -> throw new IllegalArgumentException("field " + field + " has unknown wire type " + wire);
    };
    byte[] tag = new byte[CodedOutputStream.computeTagSize(field)];
    CodedOutputStream.newInstance(tag).writeTag(field, wire);
    byte[] all = java.util.Arrays.copyOf(tag, tag.length + value.length);
    System.arraycopy(value, 0, all, tag.length, value.length);
    return all;
  }

  private byte[] bytes(long n) throws IOException {
    if (n < 0 || n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a field of " + n + " bytes");
    }
    requireFollowing(n);
    byte[] b = new byte[(int) n];
    readFully(b, b.length);
    return b;
  }

  /**
   * A declared length must fit in what follows: in the tensor field, and in the message when the
   * stream knows its length (gRPC's do). Checked before allocating, so a few bytes that declare
   * a 2 GB field cost nothing.
   */
  private void requireFollowing(long n) throws IOException {
    if (n < 0 || (end >= 0 && n > end - read)) {
      throw new IllegalArgumentException("a field of " + n + " bytes runs past the end of the tensor field");
    }
    if (in instanceof KnownLength && n > in.available()) {
      throw new IllegalArgumentException("a field of " + n + " bytes, but the message ends after " + in.available());
    }
  }

  private void readFully(byte[] b, int n) throws IOException {
    int got = in.readNBytes(b, 0, n);
    if (got != n) {
      throw new IllegalArgumentException("the message ends " + (n - got) + " bytes early");
    }
    read += n;
  }

  /** A varint, or -1 at the end of the stream (only where a new field may start). */
  private long varintOrEnd() throws IOException {
    int b = in.read();
    if (b < 0) {
      return -1;
    }
    read++;
    return rest(b);
  }

  private long varint() throws IOException {
    int b = in.read();
    if (b < 0) {
      throw new IllegalArgumentException("the message ends inside a varint");
    }
    read++;
    return rest(b);
  }

  private long rest(int first) throws IOException {
    long v = first & 0x7f;
    int shift = 7;
    int b = first;
    while ((b & 0x80) != 0) {
      if (shift > 63) {
        throw new IllegalArgumentException("a varint longer than 10 bytes");
      }
      b = in.read();
      if (b < 0) {
        throw new IllegalArgumentException("the message ends inside a varint");
      }
      read++;
      v |= (long) (b & 0x7f) << shift;
      shift += 7;
    }
    return v;
  }
}
