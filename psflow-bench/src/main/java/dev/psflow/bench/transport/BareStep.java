package dev.psflow.bench.transport;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

/**
 * What crosses the wire in one worker step of the replica example's model (100 hidden units), with
 * nothing of psflow's: each variable pulled and its gradient pushed as raw bytes in its own unary
 * call, the 4 pulls in flight together and then the 4 pushes, as a worker's Recv and apply do.
 */
final class BareStep {
  /** The variables' bytes: hid_w 784x100, hid_b 100, sm_w 100x10, sm_b 10 floats; 318,040 each way. */
  static final int[] SIZES = {784 * 100 * 4, 100 * 4, 100 * 10 * 4, 10 * 4};

  /** Bytes as they are: gRPC frames the array's stream; a parse reads the message into one new array. */
  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  /** A pull: the request names the size (4 bytes), the response carries that many bytes. */
  static final MethodDescriptor<byte[], byte[]> PULL = unary("Pull");
  /** A push: the request carries the gradient's bytes, the response is empty. */
  static final MethodDescriptor<byte[], byte[]> PUSH = unary("Push");
  /** The server's process CPU time so far, in nanoseconds (8 bytes), so the client reads both sides. */
  static final MethodDescriptor<byte[], byte[]> CPU = unary("Cpu");

  /** psflow's own (GrpcTransport): a 318 KB message is never held up by a window update. */
  static final int FLOW_CONTROL_WINDOW = 8 << 20;
  static final int MAX_MESSAGE_BYTES = 16 << 20;

  private BareStep() {}

  /** The certificates' directory of {@code --tls_dir=DIR}; null for {@code --plaintext}. */
  static String tlsDir(String wire) {
    return wire.startsWith("--tls_dir=") ? wire.substring("--tls_dir=".length()) : null;
  }

  private static MethodDescriptor<byte[], byte[]> unary(String name) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("psflow.bench.BareStep/" + name)
        .setRequestMarshaller(BYTES)
        .setResponseMarshaller(BYTES)
        .build();
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  static byte[] intBytes(int v) {
    return ByteBuffer.allocate(4).putInt(v).array();
  }

  static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }
}
