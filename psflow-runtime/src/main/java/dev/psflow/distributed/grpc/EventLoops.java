package dev.psflow.distributed.grpc;

import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The transport's event-loop threads. By default gRPC's own (a few per core). With the system
 * property {@code psflow.grpc.eventLoopThreads=N} every server and channel of this JVM shares one
 * group of N daemon threads instead: the tests run with N = 1, so a handler or callback that waits
 * on another RPC deadlocks every time instead of now and then (it would hold the only thread that
 * can deliver the answer).
 */
final class EventLoops {
  static final String THREADS_PROPERTY = "psflow.grpc.eventLoopThreads";

  private static final EventLoopGroup SHARED = shared(Integer.getInteger(THREADS_PROPERTY, 0));

  private EventLoops() {}

  static NettyServerBuilder apply(NettyServerBuilder b) {
    return SHARED == null ? b
        : b.bossEventLoopGroup(SHARED).workerEventLoopGroup(SHARED).channelType(NioServerSocketChannel.class);
  }

  static NettyChannelBuilder apply(NettyChannelBuilder b) {
    return SHARED == null ? b : b.eventLoopGroup(SHARED).channelType(NioSocketChannel.class);
  }

  private static EventLoopGroup shared(int threads) {
    if (threads <= 0) {
      return null;
    }
    return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("psflow-grpc-loop", true),
        NioIoHandler.newFactory());
  }
}
