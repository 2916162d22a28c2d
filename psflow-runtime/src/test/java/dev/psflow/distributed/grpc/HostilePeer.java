package dev.psflow.distributed.grpc;

import dev.psflow.proto.MasterServiceGrpc;
import dev.psflow.proto.WorkerServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

/**
 * A peer that is no task of the cluster and sends what it likes: protobuf stubs for well-formed
 * calls, raw bytes for malformed ones, raw sockets below gRPC. It connects from 127.0.0.2 (any
 * 127/8 address reaches the loopback interface on Linux), so the server tells it apart from the
 * cluster's own tasks on 127.0.0.1 — as it would a stranger on another host. Close it when done.
 */
final class HostilePeer implements AutoCloseable {
  static final String ADDRESS = "127.0.0.2";
  /**
   * Every stranger's channel on one thread: Netty's object recyclers are per thread, so the
   * rehearsal of an attack fills the very caches the measured attack uses (gRPC's shared client
   * group would put each new channel on another of its threads, and each would fill its own).
   */
  private static final EventLoopGroup LOOP = new MultiThreadIoEventLoopGroup(1,
      new DefaultThreadFactory("hostile-peer", true), NioIoHandler.newFactory());

  private final int port;
  final ManagedChannel channel;
  final WorkerServiceGrpc.WorkerServiceBlockingStub worker;
  final WorkerServiceGrpc.WorkerServiceStub workerAsync;
  final MasterServiceGrpc.MasterServiceBlockingStub master;

  HostilePeer(int port) {
    this.port = port;
    this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port)
        .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker() {
          @Override
          public InetSocketAddress createSocketAddress(java.net.SocketAddress remote, io.grpc.Attributes attrs) {
            return new InetSocketAddress(ADDRESS, 0);
          }
        })
        .usePlaintext()
        .eventLoopGroup(LOOP)
        .channelType(NioSocketChannel.class)
        // Callbacks only count outcomes: running them on the transport's thread keeps this JVM's
        // client side from growing a thread pool during the attack, which the heap figures would include.
        .directExecutor()
        .maxInboundMessageSize(Integer.MAX_VALUE)
        .build();
    this.worker = WorkerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    this.workerAsync = WorkerServiceGrpc.newStub(channel);
    this.master = MasterServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
  }

  /** Calls {@code method} with {@code body} as the request's bytes, whatever they are; returns the status. */
  Status callRaw(MethodDescriptor<?, ?> method, byte[] body) {
    try {
      ClientCalls.blockingUnaryCall(channel, raw(method), CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), body);
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  /**
   * Writes {@code bytes} on a fresh TCP connection from {@link #ADDRESS} and reads until the server
   * closes it; returns what it answered (or null if it reset the connection).
   */
  byte[] sendOnSocket(byte[] bytes, int timeoutMillis) throws IOException {
    try (Socket s = socket()) {
      s.setSoTimeout(timeoutMillis);
      s.getOutputStream().write(bytes);
      s.getOutputStream().flush();
      try {
        return s.getInputStream().readAllBytes();
      } catch (java.net.SocketException e) {
        return null; // reset: closed too
      }
    }
  }

  /** A plain TCP connection to the server from {@link #ADDRESS}; the caller closes it. */
  Socket socket() throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(ADDRESS, 0));
    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    return s;
  }

  /** Messages as their bytes, unparsed. */
  static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] v) {
      return new ByteArrayInputStream(v);
    }

    @Override
    public byte[] parse(InputStream s) {
      try {
        return s.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  static <Q, R> MethodDescriptor<byte[], byte[]> raw(MethodDescriptor<Q, R> m) {
    return m.toBuilder(BYTES, BYTES).build();
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
  }
}
