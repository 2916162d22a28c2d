package dev.psflow.distributed.grpc;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.psflow.graph.TensorProtos;
import dev.psflow.proto.RecvTensorResponse;
import dev.psflow.proto.TensorProto;
import dev.psflow.proto.TensorShapeProto;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * RecvTensor's response — the parameters a worker pulls and the gradients a ps pulls — marshalled
 * straight between a tensor's array and gRPC's buffers. The bytes on the wire are exactly
 * {@code RecvTensorResponse{tensor: TensorProto{dtype, tensor_shape, tensor_content}}}, as
 * protobuf writes them, so any protobuf peer reads them; but no intermediate byte[] of the whole
 * tensor, no ByteString and no message object is made on either side: the sender converts the
 * array to little-endian bytes through a small reused buffer as gRPC drains the stream, and the
 * receiver converts the content bytes as they arrive into the new tensor's array. Tensors that are
 * not numeric (strings, resource handles) take protobuf's own path. Stateless; thread-safe.
 */
final class TensorMarshaller implements MethodDescriptor.Marshaller<Tensor> {
  static final TensorMarshaller INSTANCE = new TensorMarshaller();

  private static final int CHUNK = 32 * 1024;
  private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[CHUNK]);
  // RecvTensorResponse.tensor = 1 and TensorProto's fields, as numbered in the .proto files
  private static final int RESPONSE_TENSOR = 1;
  private static final int DTYPE = 1;
  private static final int TENSOR_SHAPE = 2;
  private static final int TENSOR_CONTENT = 4;
  private static final int LENGTH_DELIMITED = 2;

  private TensorMarshaller() {}

  @Override
  public InputStream stream(Tensor t) {
    if (!isPlain(t.dtype())) {
      return new ByteArrayInputStream(RecvTensorResponse.newBuilder().setTensor(TensorProtos.toProto(t)).build().toByteArray());
    }
    return new ContentStream(t);
  }

  @Override
  public Tensor parse(InputStream in) {
    try {
      return new Reader(in).read();
    } catch (InvalidProtocolBufferException e) {
      throw Status.INVALID_ARGUMENT.withDescription("malformed tensor: " + e.getMessage()).withCause(e).asRuntimeException();
    } catch (IOException e) {
      throw Status.INTERNAL.withDescription("cannot read a tensor: " + e.getMessage()).withCause(e).asRuntimeException();
    } catch (IllegalArgumentException e) {
      throw Status.INVALID_ARGUMENT.withDescription("malformed tensor: " + e.getMessage()).withCause(e).asRuntimeException();
    }
  }

  private static boolean isPlain(DType d) {
    return d == DType.FLOAT32 || d == DType.FLOAT64 || d == DType.INT32 || d == DType.INT64;
  }

  /** The response's bytes: a small protobuf header, then the content converted chunk by chunk. */
  private static final class ContentStream extends InputStream implements Drainable, KnownLength {
    private final Tensor tensor;
    private final byte[] header;
    private final long contentBytes;
    private boolean drained;

    ContentStream(Tensor t) {
      this.tensor = t;
      this.contentBytes = (long) t.size() * t.dtype().byteSize();
      TensorShapeProto shape = TensorProtos.toProto(t.shape());
      int dtype = TensorProtos.toProto(t.dtype()).getNumber();
      // proto3 leaves an empty bytes field out, and so do we: the same bytes as protobuf's
      long contentField = contentBytes == 0 ? 0 : CodedOutputStream.computeTagSize(TENSOR_CONTENT)
          + CodedOutputStream.computeUInt64SizeNoTag(contentBytes) + contentBytes;
      long tensorBytes = CodedOutputStream.computeEnumSize(DTYPE, dtype)
          + CodedOutputStream.computeMessageSize(TENSOR_SHAPE, shape) + contentField;
      byte[] h = new byte[64 + shape.getSerializedSize()];
      CodedOutputStream out = CodedOutputStream.newInstance(h);
      try {
        out.writeTag(RESPONSE_TENSOR, LENGTH_DELIMITED);
        out.writeUInt64NoTag(tensorBytes);
        out.writeEnum(DTYPE, dtype);
        out.writeMessage(TENSOR_SHAPE, shape);
        if (contentBytes > 0) {
          out.writeTag(TENSOR_CONTENT, LENGTH_DELIMITED);
          out.writeUInt64NoTag(contentBytes);
        }
      } catch (IOException e) {
        throw new IllegalStateException("a tensor header does not fit " + h.length + " bytes", e);
      }
      this.header = java.util.Arrays.copyOf(h, out.getTotalBytesWritten());
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      drained = true;
      target.write(header);
      byte[] chunk = BUFFERS.get();
      ByteBuffer buf = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
      int width = tensor.dtype().byteSize();
      int perChunk = CHUNK / width;
      int n = tensor.size();
      Object data = tensor.data();
      for (int i = 0; i < n; i += perChunk) {
        int m = Math.min(perChunk, n - i);
        buf.clear();
        switch (tensor.dtype()) {
          case FLOAT32 -> buf.asFloatBuffer().put((float[]) data, i, m);
          case FLOAT64 -> buf.asDoubleBuffer().put((double[]) data, i, m);
          case INT32 -> buf.asIntBuffer().put((int[]) data, i, m);
          case INT64 -> buf.asLongBuffer().put((long[]) data, i, m);
          default -> throw new AssertionError(tensor.dtype());
        }
        target.write(chunk, 0, m * width);
      }
      return Math.toIntExact(header.length + contentBytes);
    }

    @Override
    public int available() {
      return drained ? 0 : Math.toIntExact(header.length + contentBytes);
    }

    @Override
    public int read() throws IOException {
      // gRPC drains a Drainable stream; reading it byte by byte is for other callers only
      byte[] all = new byte[available()];
      if (all.length == 0) {
        return -1;
      }
      throw new IOException("read the tensor stream with drainTo");
    }
  }

  /**
   * Reads RecvTensorResponse's bytes: numeric tensor_content straight into the tensor's array,
   * every other field merged into a TensorProto for protobuf's own decoding.
   */
  private static final class Reader {
    private final InputStream in;
    private long read;
    /** Where the tensor field ends (bytes from the start), -1 before it begins. */
    private long end = -1;

    Reader(InputStream in) {
      this.in = in;
    }

    Tensor read() throws IOException {
      TensorProto.Builder other = TensorProto.newBuilder();
      Object content = null;
      int dtypeNumber = 0;
      TensorShapeProto shape = TensorShapeProto.getDefaultInstance();
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
          content = content(TensorProtos.fromProto(dtypeNumber), varint());
        } else {
          other.mergeFrom(rawField(field, wire));
        }
      }
      if (end >= 0 && read != end) {
        throw new IllegalArgumentException("the tensor field ends at byte " + read + ", not " + end);
      }
      if (content == null) {
        return TensorProtos.fromProto(other.setDtypeValue(dtypeNumber).setTensorShape(shape).build());
      }
      Shape s = TensorProtos.fromProto(shape);
      DType dtype = TensorProtos.fromProto(dtypeNumber);
      if (!s.isFullyDefined() || s.numElements() != java.lang.reflect.Array.getLength(content)) {
        throw new IllegalArgumentException("tensor_content holds " + java.lang.reflect.Array.getLength(content)
            + " " + dtype + " elements but the shape is " + s);
      }
      return Tensor.wrap(dtype, s, content);
    }

    private Object content(DType dtype, long bytes) throws IOException {
      int width = dtype.byteSize();
      if (bytes % width != 0 || bytes / width > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("tensor_content of " + bytes + " bytes is no whole number of " + dtype);
      }
      requireFollowing(bytes);
      int n = (int) (bytes / width);
      Object array = switch (dtype) {
        case FLOAT32 -> new float[n];
        case FLOAT64 -> new double[n];
        case INT32 -> new int[n];
        case INT64 -> new long[n];
        default -> throw new AssertionError(dtype);
      };
      byte[] chunk = BUFFERS.get();
      ByteBuffer buf = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
      int perChunk = CHUNK / width;
      for (int i = 0; i < n; i += perChunk) {
        int m = Math.min(perChunk, n - i);
        readFully(chunk, m * width);
        buf.clear();
        switch (dtype) {
          case FLOAT32 -> buf.asFloatBuffer().get((float[]) array, i, m);
          case FLOAT64 -> buf.asDoubleBuffer().get((double[]) array, i, m);
          case INT32 -> buf.asIntBuffer().get((int[]) array, i, m);
          case INT64 -> buf.asLongBuffer().get((long[]) array, i, m);
          default -> throw new AssertionError(dtype);
        }
      }
      return array;
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
}
