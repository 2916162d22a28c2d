package dev.psflow.distributed.grpc;

import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.IoHandlerFactory;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.util.function.Supplier;

/**
 * The transport's event-loop threads. By default one boss thread and gRPC's usual number of worker
 * threads (twice the cores), epoll where the platform has it, shared by every server of the JVM;
 * channels use gRPC's own. With the system property {@code psflow.grpc.eventLoopThreads=N} every
 * server and channel of this JVM shares one group of N daemon threads instead: the tests run with
 * N = 1, so a handler or callback that waits on another RPC deadlocks every time instead of now and
 * then (it would hold the only thread that can deliver the answer).
 *
 * <p>Servers get their threads from here, rather than gRPC's defaults, because that is the only way
 * to put a handler (the {@link ConnectionLimit}) on the listening socket.
 */
final class EventLoops {
  static final String THREADS_PROPERTY = "psflow.grpc.eventLoopThreads";

  private static final EventLoopGroup SHARED = shared(Integer.getInteger(THREADS_PROPERTY, 0));

  private EventLoops() {}

  /** The default server groups, made on first use. */
  private static final class Defaults {
    static final boolean EPOLL = Epoll.isAvailable();
    static final EventLoopGroup BOSS = group(1, "psflow-grpc-boss");
    static final EventLoopGroup WORKER = group(0, "psflow-grpc-worker");

    private static EventLoopGroup group(int threads, String name) {
      IoHandlerFactory io = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
      return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), io);
    }
  }

  /** The server's threads, with {@code acceptFilter} on its listening socket's pipeline. */
  static NettyServerBuilder apply(NettyServerBuilder b, ChannelHandler acceptFilter) {
    if (SHARED != null) {
      return b.bossEventLoopGroup(SHARED).workerEventLoopGroup(SHARED)
          .channelFactory(filtered(NioServerSocketChannel::new, acceptFilter));
    }
    Supplier<ServerChannel> socket = Defaults.EPOLL ? EpollServerSocketChannel::new : NioServerSocketChannel::new;
    return b.bossEventLoopGroup(Defaults.BOSS).workerEventLoopGroup(Defaults.WORKER)
        .channelFactory(filtered(socket, acceptFilter));
  }

  static NettyChannelBuilder apply(NettyChannelBuilder b) {
    return SHARED == null ? b : b.eventLoopGroup(SHARED).channelType(NioSocketChannel.class);
  }

  private static io.grpc.netty.shaded.io.netty.channel.ChannelFactory<ServerChannel> filtered(
      Supplier<ServerChannel> socket, ChannelHandler acceptFilter) {
    return () -> {
      ServerChannel c = socket.get();
      c.pipeline().addLast(acceptFilter); // ahead of the acceptor, which the bootstrap adds later
      return c;
    };
  }

  private static EventLoopGroup shared(int threads) {
    if (threads <= 0) {
      return null;
    }
    return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("psflow-grpc-loop", true),
        NioIoHandler.newFactory());
  }
}
