package dev.psflow.distributed.grpc;

import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.Master;
import dev.psflow.distributed.MasterApi;
import dev.psflow.distributed.ServerLimits;
import dev.psflow.distributed.TaskMetrics;
import dev.psflow.distributed.Transport;
import dev.psflow.distributed.Worker;
import dev.psflow.distributed.WorkerClient;
import dev.psflow.exec.TensorSizeLimit;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.RecvByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.WriteBufferWaterMark;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * gRPC over HTTP/2 (Netty): serves a task's master and worker on one port and opens one channel per
 * peer. Messages may be as large as two tensors at the task's size limit (no 4 MiB wall); the
 * server enforces the per-peer {@link ServerLimits} (connections, idle time). Handlers run on the transport's
 * threads and never block: waits are asynchronous, and the master's blocking calls go to virtual threads.
 * Plaintext, or mutual TLS on the server and every channel ({@link #withTls}). One instance per
 * server; {@link #close()} shuts every channel down (shutdown, wait, shutdownNow).
 */
public final class GrpcTransport implements Transport {
  /**
   * The chunk size of the pooled allocator gRPC makes for its Netty buffers: 16 MiB (Netty's own
   * default) where gRPC-java asks for 2 MiB unless this property is set. A buffer larger than a
   * chunk is not pooled: it is allocated from the system and freed after one use, and every page of
   * it is faulted in and zeroed by the kernel again. With 2 MiB chunks the HTTP/2 decoder's
   * accumulation of a large tensor's frames, and the framing of one, took fresh memory each step:
   * at 1600 hidden units (5 MB tensors) page faults were 16% of a ps's CPU, and with 16 MiB chunks
   * the 600-step async job took 0.90x the time and 0.88x the CPU (4 pairs; 400 units 0.86x; the
   * README's 100-unit job level; docs/benchmarks.md). A chunk is allocated only when a thread's
   * arena needs one. Set before any Netty class reads it (this class is loaded before the
   * transport's first buffer); a value given on the command line wins.
   */
  static final String ALLOCATOR_MAX_ORDER_PROPERTY = "io.grpc.netty.shaded.io.netty.allocator.maxOrder";
  /**
   * How many arenas of direct (off-heap) buffers that allocator keeps: one per two cores, where
   * Netty keeps two per core. Each arena a thread touches takes a 16 MiB chunk of its own, so when
   * Netty may use {@code sun.misc.Unsafe} (bin/jvm-flags.sh allows it on JDK 23-25) and prefers
   * direct buffers, a 2-core task held 64 MiB of them (Native Memory Tracking, "Other": 68 MB against
   * 1 MB without Unsafe) and a worker's peak memory rose by 50-60 MB. At one arena per two cores it
   * is back where it was, and the README's job used less CPU than without Unsafe: 11.86 s against
   * 12.71 s, 9 of 10 alternated pairs shorter (docs/benchmarks.md). A value given on the command
   * line wins.
   */
  static final String ALLOCATOR_DIRECT_ARENAS_PROPERTY = "io.grpc.netty.shaded.io.netty.allocator.numDirectArenas";
  /**
   * The largest buffer a thread keeps for its next allocation of the same size when it frees one:
   * 1 MiB, the most gRPC asks for at once (a message is framed into buffers of up to 1 MiB, a socket
   * read is at most {@link #READ_BUFFER}'s 1 MiB), where Netty keeps only those up to 32 KiB. A
   * larger buffer went back to its arena, and the next one came from another run of the chunk,
   * whose memory was no longer in the core's cache: framing a 318 KB tensor, a copy from a 32 KiB
   * array into it, ran at ~3 GB/s in a ps (async-profiler, 8000-step async job), where the same copy
   * in a JVM of its own runs at 40 GB/s into a buffer used again and at 3.6 GB/s into one that is
   * not. Kept, the next tensor is framed into the buffer
   * the last one left: the ps's samples in that copy fell from 248 to 70 and its CPU in the
   * 4000-step async job was lower in 6 of 6 alternated pairs (docs/benchmarks.md). The memory stays
   * in the arena's chunks. A value given on the command line wins.
   */
  static final String ALLOCATOR_MAX_CACHED_PROPERTY = "io.grpc.netty.shaded.io.netty.allocator.maxCachedBufferCapacity";

  static {
    // each a default: a value given on the command line stays
    System.getProperties().putIfAbsent(ALLOCATOR_MAX_ORDER_PROPERTY, "11");
    System.getProperties().putIfAbsent(ALLOCATOR_DIRECT_ARENAS_PROPERTY,
        Integer.toString(Math.max(1, Runtime.getRuntime().availableProcessors() / 2)));
    System.getProperties().putIfAbsent(ALLOCATOR_MAX_CACHED_PROPERTY, Integer.toString(1 << 20));
    CallCounters.skipCallerChecks();
  }

  static final int MAX_MESSAGE_BYTES = Integer.MAX_VALUE;
  static final String WRITE_BUFFER_PROPERTY = "psflow.grpc.writeBufferBytes";
  static final String READ_BUFFER_PROPERTY = "psflow.grpc.readBufferBytes";
  /**
   * Every connection's and stream's HTTP/2 receive window, fixed. gRPC's default starts at 1 MiB and
   * tunes itself by pinging the peer as data arrives (BDP probes, up to 8 MiB): each probe and its
   * answer is one more TLS record, socket write and wake-up on both sides, and a 1 MiB connection
   * window asks for a WINDOW_UPDATE every other step of the replica example (636 KB each way). At a
   * fixed 8 MiB, the most the probes would reach, a ps made 7.5 reads and 3.5 single writes per
   * global step instead of 8.2 and 4.1 (strace -c, async, 2 workers), and the async job ran a
   * median 3% more global steps/sec over 7 alternations (docs/benchmarks.md).
   */
  static final int FLOW_CONTROL_WINDOW = 8 << 20;

  /**
   * How many bytes a connection's socket buffer may hold before Netty calls the channel unwritable:
   * a flow-control window's worth, writable again at half. Netty's 64 KiB default made HTTP/2 write
   * a 318 KB tensor in rounds, each one TLS wrap, one writev and one wake-up when the socket
   * drained; with a window's worth it goes out at once: a ps made 1.0 writev and 2.35 sends per
   * global step instead of 7.0 and 3.5 (strace -c, async, 2 workers; docs/benchmarks.md). It holds
   * back little memory: gRPC frames a whole message into Netty's buffers before any of it is
   * written (the largest process's peak was 20 MB higher in that A/B). {@code -Dpsflow.grpc.writeBufferBytes=0} keeps Netty's default, to measure against.
   */
  static final WriteBufferWaterMark WRITE_BUFFER =
      writeBuffer(Integer.getInteger(WRITE_BUFFER_PROPERTY, FLOW_CONTROL_WINDOW));

  /**
   * gRPC-java wraps every call of a channel with retries enabled (its default) in a RetriableStream,
   * which keeps the call's messages for a replay even with no retry policy, for its transparent
   * retry of a stream the server never saw. psflow recovers at the step (a failed RunGraph or
   * RecvTensors aborts the step and the session recovers), as TensorFlow does, so its channels go
   * without: a 6000-step async MNIST job used 0.98x the CPU (the ps 0.96x; 4 pairs against this
   * flag, docs/benchmarks.md). A server's close of an idle connection is graceful (GOAWAY, a
   * PING, then the last stream it took), so no call races it; a call that meets a connection as it
   * breaks fails UNAVAILABLE instead of being tried again on a new one. {@code
   * -Dpsflow.grpc.retry=true} restores gRPC's default.
   */
  static final boolean RETRY = Boolean.parseBoolean(System.getProperty("psflow.grpc.retry", "false"));

  /**
   * The most one socket read takes: 1 MiB, where Netty's default stops at 64 KiB. Every read goes
   * up the whole pipeline (TLS, HTTP/2, gRPC's deframer), so a 318 KB tensor arriving in five reads
   * paid for that five times: with 1 MiB a ps made 3.9 reads per global step instead of 7.3, a
   * worker 1.4 instead of 2.6 (strace -c), and the 4000-step async job took 0.91x the time and CPU
   * (4 pairs; docs/benchmarks.md). A read's buffer is allocated at the size Netty guesses from the
   * last reads, so the cap is kept near the tensors of a step rather than at the window.
   * {@code -Dpsflow.grpc.readBufferBytes=0} keeps Netty's default.
   */
  static final RecvByteBufAllocator READ_BUFFER = readBuffer(Integer.getInteger(READ_BUFFER_PROPERTY, 1 << 20));

  private final List<ManagedChannel> channels = new CopyOnWriteArrayList<>();
  private final TlsConfig tls; // null: plaintext
  private final SslContext channelTls; // null: plaintext
  private final TaskMetrics metrics; // null: off
  private volatile String self; // the task this transport serves, named as the caller of its calls; null until it serves
  /** The largest tensor this task takes from a peer: its server's max_tensor_bytes once it serves. */
  private volatile TensorSizeLimit receiveLimit = TensorSizeLimit.DEFAULT;

  /** Plaintext: anyone who reaches the port may make any call. */
  public GrpcTransport() {
    this(null, null, null);
  }

  /** Reads sized to what arrives, from 64 bytes up to {@code max}; null for Netty's default when {@code max <= 0}. */
  static RecvByteBufAllocator readBuffer(int max) {
    return max <= 0 ? null : new AdaptiveRecvByteBufAllocator(64, Math.min(max, 64 << 10), max);
  }

  /** The water marks for {@code high} bytes (low at half); null for Netty's default when {@code high <= 0}. */
  static WriteBufferWaterMark writeBuffer(int high) {
    return high <= 0 ? null : new WriteBufferWaterMark(high / 2, high);
  }

  private GrpcTransport(TlsConfig tls, SslContext channelTls, TaskMetrics metrics) {
    this.tls = tls;
    this.channelTls = channelTls;
    this.metrics = metrics;
  }

  /** Mutual TLS with these certificates on every server and channel, and calls authorized by role ({@link Authorization}). */
  @Override
  public Transport withTls(TlsConfig t) {
    return t == null ? this : new GrpcTransport(t, TlsCredentials.channel(t), metrics);
  }

  /** Every call served and made recorded in {@code m} ({@link RpcMetrics}). */
  @Override
  public Transport withMetrics(TaskMetrics m) {
    return m == null ? this : new GrpcTransport(tls, channelTls, m);
  }

  @Override
  public Binding serve(String task, String address, Master master, Worker worker) {
    InetSocketAddress at = socketAddress(address);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(at);
    if (tls != null) {
      SslContext serverTls = TlsCredentials.server(task, tls);
      // gRPC's own TLS negotiator, as sslContext() would choose, wrapped.
      builder.protocolNegotiator(LargeFrames.negotiator(InternalProtocolNegotiators.serverTls(serverTls)))
          .intercept(new Authorization(task));
      TlsWarmup.start(serverTls, channelTls);
    } else {
      builder.protocolNegotiator(LargeFrames.negotiator(InternalProtocolNegotiators.serverPlaintext()));
    }
    builder.flowControlWindow(FLOW_CONTROL_WINDOW);
    if (WRITE_BUFFER != null) {
      builder.withChildOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER);
    }
    if (READ_BUFFER != null) {
      builder.withChildOption(ChannelOption.RCVBUF_ALLOCATOR, READ_BUFFER);
    }
    ExecutorService blocking = Executors.newVirtualThreadPerTaskExecutor();
    self = task;
    if (metrics != null) {
      builder.addStreamTracerFactory(RpcMetrics.serverTracer(metrics));
    }
    ServerLimits limits = worker.limits();
    receiveLimit = limits.tensorSize();
    Peers peers = new Peers();
    Server server = EventLoops.apply(builder, new ConnectionLimit(task, limits.maxConnectionsPerPeer()))
        .directExecutor()
        .maxInboundMessageSize(maxInboundMessageBytes(limits))
        .maxConnectionIdle(limits.connectionIdle().toMillis(), TimeUnit.MILLISECONDS)
        .maxConcurrentCallsPerConnection(limits.maxConcurrentCallsPerConnection())
        .handshakeTimeout(limits.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .addStreamTracerFactory(WireStats.serverTracer())
        .addService(ServerInterceptors.intercept(
            MalformedRequests.guard(TensorWire.workerService(new GrpcWorkerService(worker))), peers))
        .addService(ServerInterceptors.intercept(
            MalformedRequests.guard(new GrpcMasterService(master, blocking, limits.tensorSize()).bindService()), peers))
        .build();
    try {
      server.start();
    } catch (IOException e) {
      String why = e instanceof BindException || String.valueOf(e.getCause()).contains("BindException")
          ? "the address is already in use (is another task running there?)" : e.getMessage();
      throw new IllegalArgumentException("cannot start " + task + " at " + address + ": " + why);
    }
    return new Binding() {
      @Override
      public int port() {
        return server.getPort();
      }

      @Override
      public void close() {
        server.shutdown();
        try {
          if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
            server.shutdownNow();
          }
        } catch (InterruptedException e) {
          server.shutdownNow();
          Thread.currentThread().interrupt();
        }
        blocking.shutdownNow();
      }
    };
  }

  /**
   * The largest request a server takes: room for two tensors at the size limit (a RunGraph with
   * its feeds, a GraphDef with its constants), so a peer cannot make it buffer more than that.
   */
  static int maxInboundMessageBytes(ServerLimits limits) {
    long room = TensorSizeLimit.plus(TensorSizeLimit.times(2, limits.tensorSize().maxBytes()), 1 << 20);
    return (int) Math.min(MAX_MESSAGE_BYTES, room);
  }

  @Override
  public WorkerClient connectWorker(String task, String address) {
    return new GrpcWorkerClient(task, address, channel(address, task), () -> receiveLimit);
  }

  @Override
  public MasterApi connectMaster(String address) {
    return new GrpcMasterClient(address, channel(address, address));
  }

  /** A channel to {@code address}, whose calls are labelled {@code peer} in the metrics. */
  ManagedChannel channel(String address, String peer) {
    InetSocketAddress at = socketAddress(address);
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress(at.getHostString(), at.getPort());
    // gRPC's own TLS or plaintext negotiator, as sslContext() or usePlaintext() would choose, wrapped.
    InternalNettyChannelBuilder.setProtocolNegotiatorFactory(builder, channelTls != null
        ? LargeFrames.clientFactory(LargeFrames.negotiator(InternalProtocolNegotiators.tls(channelTls, null, null)), 443)
        : LargeFrames.clientFactory(LargeFrames.negotiator(InternalProtocolNegotiators.plaintext()), 80));
    builder.flowControlWindow(FLOW_CONTROL_WINDOW);
    if (WRITE_BUFFER != null) {
      builder.withOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER);
    }
    if (READ_BUFFER != null) {
      builder.withOption(ChannelOption.RCVBUF_ALLOCATOR, READ_BUFFER);
    }
    if (!RETRY) {
      builder.disableRetry();
    }
    ManagedChannel c = EventLoops.apply(builder)
        .directExecutor()
        .maxInboundMessageSize(MAX_MESSAGE_BYTES)
        .intercept(WireStats.clientInterceptor(), RpcMetrics.client(() -> self, metrics, peer))
        .build();
    channels.add(c);
    return c;
  }

  @Override
  public void close() {
    for (ManagedChannel c : channels) {
      c.shutdown();
    }
    for (ManagedChannel c : channels) {
      try {
        if (!c.awaitTermination(1, TimeUnit.SECONDS)) {
          c.shutdownNow();
        }
      } catch (InterruptedException e) {
        c.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    channels.clear();
  }

  static InetSocketAddress socketAddress(String address) {
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new InetSocketAddress(host, Integer.parseInt(address.substring(colon + 1)));
  }
}
