package dev.psflow.distributed.grpc;

import dev.psflow.distributed.ProcessExit;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.EventLoop;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.IoHandlerFactory;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.netty.shaded.io.netty.util.concurrent.EventExecutor;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The transport's event-loop threads. By default one boss thread and gRPC's usual number of worker
 * threads (twice the cores), epoll where the platform has it, shared by every server of the JVM;
 * channels get a group of their own of the same size, as gRPC's default would be, but psflow's, so
 * that {@link ProcessExit} can end it before the JVM exits (gRPC keeps its own for a second after
 * the last channel closes, and an exiting JVM waits for threads blocked in epoll). A channel made on
 * a server's event loop stays on that loop instead ({@link #apply(NettyChannelBuilder)}). With the
 * system property {@code psflow.grpc.eventLoopThreads=N} every
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
  private static final boolean PIN_CHANNELS =
      Boolean.parseBoolean(System.getProperty("psflow.grpc.pinChannels", "true"));

  private EventLoops() {}

  /** The default groups, made on first use. */
  static final class Defaults {
    static final boolean EPOLL = Epoll.isAvailable();
    static final EventLoopGroup BOSS = group(1, "psflow-grpc-boss");
    static final EventLoopGroup WORKER = group(0, "psflow-grpc-worker");
    static final EventLoopGroup CHANNELS = group(0, "psflow-grpc-channel");

    static {
      ProcessExit.onRelease(() -> shutDown(List.of(BOSS, WORKER, CHANNELS)));
    }

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

  /**
   * The channel's threads: the server event loop that makes it, when one does, else the channel group.
   * A ps makes its channel to a worker while it serves that worker's first step (the step's RunGraph
   * pulls the worker's gradients), so on the loop that already serves the worker's calls the pull,
   * its answer, the Adam update it feeds and the RunGraph's reply stay on one thread; on a thread of
   * the channel group each of them was a wake-up of another thread. The README's job 0.95x the time
   * (10 alternated pairs); over 6000 steps the ps's CPU 0.87x, the job's 0.92x (docs/benchmarks.md).
   * {@code -Dpsflow.grpc.pinChannels=false} keeps every channel on the channel group.
   */
  static NettyChannelBuilder apply(NettyChannelBuilder b) {
    if (SHARED != null) {
      return b.eventLoopGroup(SHARED).channelType(NioSocketChannel.class);
    }
    EventLoop serving = PIN_CHANNELS ? servingLoop() : null;
    return b.eventLoopGroup(serving != null ? serving : Defaults.CHANNELS)
        .channelType(Defaults.EPOLL ? EpollSocketChannel.class : NioSocketChannel.class);
  }

  /** The server event loop (of the default groups) this thread is, or null. */
  static EventLoop servingLoop() {
    for (EventExecutor e : Defaults.WORKER) {
      if (e.inEventLoop()) {
        return (EventLoop) e;
      }
    }
    return null;
  }

  /**
   * Ends {@code groups}' threads at the process's exit: no quiet period, at most 200 ms for tasks
   * still queued, then up to 500 ms for the threads to end (a process's servers and channels are
   * closed by then).
   */
  private static void shutDown(List<EventLoopGroup> groups) {
    for (EventLoopGroup g : groups) {
      g.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS);
    }
    try {
      for (EventLoopGroup g : groups) {
        g.awaitTermination(500, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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
    EventLoopGroup g = new MultiThreadIoEventLoopGroup(threads,
        new DefaultThreadFactory("psflow-grpc-loop", true), NioIoHandler.newFactory());
    ProcessExit.onRelease(() -> shutDown(List.of(g)));
    return g;
  }
}
