package dev.psflow.distributed.grpc;

import static dev.psflow.distributed.grpc.TensorMarshaller.RESPONSE_KEY_INDEX;
import static dev.psflow.distributed.grpc.TensorMarshaller.VARINT;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.TensorSizeLimit;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * RecvTensors' response messages: each is RecvTensor's ({@link TensorMarshaller}, the same bytes
 * and the same straight copies) with the key's {@code key_index} written in front, which protobuf
 * reads as the same RecvTensorResponse with one more field. {@link #SENDING} is shared; a receiving
 * marshaller holds its call's state ({@link TensorReader#readKeyed}), so each call gets its own.
 */
final class KeyedTensorMarshaller implements MethodDescriptor.Marshaller<KeyedChunk> {
  /** For servers: streams chunks; cannot parse. */
  static final KeyedTensorMarshaller SENDING = new KeyedTensorMarshaller(null, 0);

  private final TensorReader reader;
  private final int keys;

  private KeyedTensorMarshaller(TensorReader reader, int keys) {
    this.reader = reader;
    this.keys = keys;
  }

  /** A marshaller for one call's answer to {@code keys} keys, each tensor at most {@code limit}. */
  static KeyedTensorMarshaller receiving(TensorSizeLimit limit, int keys) {
    return new KeyedTensorMarshaller(new TensorReader(limit), keys);
  }

  @Override
  public InputStream stream(KeyedChunk c) {
    byte[] prefix = new byte[CodedOutputStream.computeTagSize(RESPONSE_KEY_INDEX)
        + CodedOutputStream.computeUInt32SizeNoTag(c.key())];
    CodedOutputStream out = CodedOutputStream.newInstance(prefix);
    try {
      out.writeTag(RESPONSE_KEY_INDEX, VARINT);
      out.writeUInt32NoTag(c.key());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return new Prefixed(prefix, TensorMarshaller.SENDING.stream(c.chunk()));
  }

  @Override
  public KeyedChunk parse(InputStream in) {
    if (reader == null) {
      throw new IllegalStateException("the sending marshaller does not parse; use KeyedTensorMarshaller.receiving");
    }
    try {
      return reader.readKeyed(in, keys);
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      throw Status.INVALID_ARGUMENT.withDescription("malformed tensor: " + e.getMessage()).withCause(e).asRuntimeException();
    } catch (IOException e) {
      throw Status.INTERNAL.withDescription("cannot read a tensor: " + e.getMessage()).withCause(e).asRuntimeException();
    } catch (StatusException e) {
      throw StatusMapping.toGrpc(e);
    }
  }

  /** A few bytes, then a message of {@link TensorMarshaller}'s, drained straight into gRPC's buffers. */
  private static final class Prefixed extends InputStream implements Drainable, KnownLength {
    private final byte[] prefix;
    private final InputStream rest;
    private boolean drained;

    Prefixed(byte[] prefix, InputStream rest) {
      this.prefix = prefix;
      this.rest = rest;
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      int n = available();
      drained = true;
      target.write(prefix);
      if (rest instanceof Drainable d) {
        d.drainTo(target);
      } else {
        rest.transferTo(target);
      }
      return n;
    }

    @Override
    public int available() throws IOException {
      return drained ? 0 : prefix.length + rest.available();
    }

    @Override
    public int read() throws IOException {
      if (available() == 0) {
        return -1;
      }
      throw new IOException("read the tensor stream with drainTo");
    }
  }
}
