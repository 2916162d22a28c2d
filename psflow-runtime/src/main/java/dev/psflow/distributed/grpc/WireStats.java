package dev.psflow.distributed.grpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientStreamTracer;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerStreamTracer;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the gRPC messages this process sends and receives and their bytes (serialized protobuf,
 * before HTTP/2 framing), on both its servers and its channels, so a benchmark can set the bytes a
 * training step moves against the ideal payload. Cheap enough to be always on. Thread-safe.
 *
 * <pre>{@code
 * WireStats.Snapshot before = WireStats.snapshot();
 * ... train ...
 * WireStats.Snapshot moved = WireStats.snapshot().minus(before);
 * }</pre>
 */
public final class WireStats {
  private static final LongAdder SENT = new LongAdder();
  private static final LongAdder RECEIVED = new LongAdder();
  private static final LongAdder MESSAGES = new LongAdder();

  private WireStats() {}

  /** Bytes and messages at one moment. */
  public record Snapshot(long bytesSent, long bytesReceived, long messages) {
    public Snapshot minus(Snapshot earlier) {
      return new Snapshot(bytesSent - earlier.bytesSent, bytesReceived - earlier.bytesReceived,
          messages - earlier.messages);
    }

    public long total() {
      return bytesSent + bytesReceived;
    }
  }

  public static Snapshot snapshot() {
    return new Snapshot(SENT.sum(), RECEIVED.sum(), MESSAGES.sum());
  }

  static ServerStreamTracer.Factory serverTracer() {
    return new ServerStreamTracer.Factory() {
      @Override
      public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        return new ServerStreamTracer() {
          @Override
          public void outboundWireSize(long bytes) {
            SENT.add(bytes);
          }

          @Override
          public void outboundMessage(int seqNo) {
            MESSAGES.increment();
          }

          @Override
          public void inboundWireSize(long bytes) {
            RECEIVED.add(bytes);
          }

          @Override
          public void inboundMessage(int seqNo) {
            MESSAGES.increment();
          }
        };
      }
    };
  }

  static ClientInterceptor clientInterceptor() {
    ClientStreamTracer.Factory factory = new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
        return new ClientStreamTracer() {
          @Override
          public void outboundWireSize(long bytes) {
            SENT.add(bytes);
          }

          @Override
          public void outboundMessage(int seqNo) {
            MESSAGES.increment();
          }

          @Override
          public void inboundWireSize(long bytes) {
            RECEIVED.add(bytes);
          }

          @Override
          public void inboundMessage(int seqNo) {
            MESSAGES.increment();
          }
        };
      }
    };
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return next.newCall(method, options.withStreamTracerFactory(factory));
      }
    };
  }
}
