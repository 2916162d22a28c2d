package dev.psflow.distributed.grpc;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.graph.TensorProtos;
import dev.psflow.proto.RecvTensorResponse;
import dev.psflow.proto.TensorShapeProto;
import dev.psflow.tensor.DType;
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
 * RecvTensor's response messages — the parameters a worker pulls and the gradients a ps pulls —
 * marshalled straight between a tensor's array and gRPC's buffers, one {@link TensorChunk} a
 * message. The bytes on the wire are exactly {@code RecvTensorResponse} as protobuf writes it (the
 * first chunk in {@code tensor{dtype, tensor_shape, tensor_content}}, later ones in
 * {@code content_chunk}), so any protobuf peer reads them; but no intermediate byte[] of the whole
 * tensor, no ByteString and no message object is made on either side: the sender converts the
 * array to little-endian bytes through a small reused buffer as gRPC drains the stream, and the
 * receiver ({@link TensorReader}) converts the content bytes as they arrive into the new tensor's
 * array. Tensors that are not numeric (strings, resource handles) take protobuf's own path, whole.
 *
 * <p>{@link #SENDING} is stateless and shared (servers only stream); a receiving marshaller holds
 * the tensor being filled, so each call gets its own ({@link #receiving}) and gRPC calls its
 * {@code parse} for one message at a time.
 */
final class TensorMarshaller implements MethodDescriptor.Marshaller<TensorChunk> {
  /** For servers: streams chunks; cannot parse. */
  static final TensorMarshaller SENDING = new TensorMarshaller(null);

  static final int BUFFER = 32 * 1024;
  static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[BUFFER]);
  // RecvTensorResponse's fields and TensorProto's, as numbered in the .proto files
  static final int RESPONSE_TENSOR = 1;
  static final int RESPONSE_CONTENT_CHUNK = 2;
  static final int RESPONSE_KEY_INDEX = 3;
  static final int DTYPE = 1;
  static final int TENSOR_SHAPE = 2;
  static final int TENSOR_CONTENT = 4;
  static final int LENGTH_DELIMITED = 2;
  static final int VARINT = 0;

  private final TensorReader reader;

  private TensorMarshaller(TensorReader reader) {
    this.reader = reader;
  }

  /** A marshaller for one call's answer; a tensor announced over {@code limit} is refused before it is allocated. */
  static TensorMarshaller receiving(TensorSizeLimit limit) {
    return new TensorMarshaller(new TensorReader(limit));
  }

  @Override
  public InputStream stream(TensorChunk c) {
    Tensor t = c.tensor();
    if (!isPlain(t.dtype())) {
      return new ByteArrayInputStream(RecvTensorResponse.newBuilder().setTensor(TensorProtos.toProto(t)).build().toByteArray());
    }
    return new ContentStream(c);
  }

  @Override
  public TensorChunk parse(InputStream in) {
    if (reader == null) {
      throw new IllegalStateException("the sending marshaller does not parse; use TensorMarshaller.receiving for a call");
    }
    try {
      return reader.read(in);
    } catch (InvalidProtocolBufferException e) {
      throw Status.INVALID_ARGUMENT.withDescription("malformed tensor: " + e.getMessage()).withCause(e).asRuntimeException();
    } catch (IOException e) {
      throw Status.INTERNAL.withDescription("cannot read a tensor: " + e.getMessage()).withCause(e).asRuntimeException();
    } catch (IllegalArgumentException e) {
      throw Status.INVALID_ARGUMENT.withDescription("malformed tensor: " + e.getMessage()).withCause(e).asRuntimeException();
    } catch (StatusException e) {
      throw StatusMapping.toGrpc(e);
    }
  }

  static boolean isPlain(DType d) {
    return d == DType.FLOAT32 || d == DType.FLOAT64 || d == DType.INT32 || d == DType.INT64;
  }

  /** One message's bytes: a small protobuf header, then the chunk's content converted piece by piece. */
  private static final class ContentStream extends InputStream implements Drainable, KnownLength {
    private final TensorChunk chunk;
    private final byte[] header;
    private final long contentBytes;
    private boolean drained;

    ContentStream(TensorChunk c) {
      this.chunk = c;
      this.contentBytes = (long) c.count() * c.tensor().dtype().byteSize();
      this.header = c.isFirst() ? firstHeader(c.tensor(), contentBytes) : laterHeader(contentBytes);
    }

    /** {@code tensor{dtype, tensor_shape, tensor_content}} up to the content's bytes. */
    private static byte[] firstHeader(Tensor t, long contentBytes) {
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
      return java.util.Arrays.copyOf(h, out.getTotalBytesWritten());
    }

    /** {@code content_chunk} up to its bytes. */
    private static byte[] laterHeader(long contentBytes) {
      byte[] h = new byte[16];
      CodedOutputStream out = CodedOutputStream.newInstance(h);
      try {
        out.writeTag(RESPONSE_CONTENT_CHUNK, LENGTH_DELIMITED);
        out.writeUInt64NoTag(contentBytes);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      return java.util.Arrays.copyOf(h, out.getTotalBytesWritten());
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      drained = true;
      target.write(header);
      Tensor tensor = chunk.tensor();
      byte[] buffer = BUFFERS.get();
      ByteBuffer buf = ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN);
      int width = tensor.dtype().byteSize();
      int perBuffer = BUFFER / width;
      int end = chunk.from() + chunk.count();
      Object data = tensor.data();
      for (int i = chunk.from(); i < end; i += perBuffer) {
        int m = Math.min(perBuffer, end - i);
        buf.clear();
        switch (tensor.dtype()) {
          case FLOAT32 -> buf.asFloatBuffer().put((float[]) data, i, m);
          case FLOAT64 -> buf.asDoubleBuffer().put((double[]) data, i, m);
          case INT32 -> buf.asIntBuffer().put((int[]) data, i, m);
          case INT64 -> buf.asLongBuffer().put((long[]) data, i, m);
          default -> throw new AssertionError(tensor.dtype());
        }
        target.write(buffer, 0, m * width);
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
      if (available() == 0) {
        return -1;
      }
      throw new IOException("read the tensor stream with drainTo");
    }
  }
}
