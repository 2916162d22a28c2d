package dev.psflow.distributed.grpc;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caps the connections one address may hold open on a server. Sits in the listening socket's
 * pipeline, ahead of Netty's acceptor: a connection over the cap is closed as soon as it is
 * accepted, before gRPC spends anything on it, so a peer opening connections without end runs into
 * its own cap instead of the process's file-descriptor limit. Refusals are logged (the first per
 * address, then every 1000th). Thread-safe; one instance per server.
 */
@ChannelHandler.Sharable
final class ConnectionLimit extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimit.class);

  private final String task;
  private final int maxPerAddress;
  private final Map<InetAddress, Integer> open = new ConcurrentHashMap<>();
  private final Map<InetAddress, Long> refused = new ConcurrentHashMap<>();

  ConnectionLimit(String task, int maxPerAddress) {
    this.task = task;
    this.maxPerAddress = maxPerAddress;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Channel child = (Channel) msg;
    InetAddress from = address(child.remoteAddress());
    if (from == null || tryOpen(from)) {
      if (from != null) {
        child.closeFuture().addListener(f -> close(from));
      }
      ctx.fireChannelRead(msg);
      return;
    }
    long n = refused.merge(from, 1L, Long::sum);
    if (n == 1 || n % 1000 == 0) {
      LOG.warn("{}: refused a connection from {}: it has {} open (max_connections_per_peer); {} refused so far",
          task, from.getHostAddress(), maxPerAddress, n);
    }
    child.unsafe().closeForcibly(); // not registered with an event loop yet: close the socket directly
  }

  /** Open connections from {@code address} (for tests). */
  int openFrom(InetAddress address) {
    return open.getOrDefault(address, 0);
  }

  private boolean tryOpen(InetAddress from) {
    boolean[] ok = {false};
    open.compute(from, (a, n) -> {
      int now = n == null ? 0 : n;
      if (now >= maxPerAddress) {
        return n;
      }
      ok[0] = true;
      return now + 1;
    });
    return ok[0];
  }

  private void close(InetAddress from) {
    open.computeIfPresent(from, (a, n) -> n == 1 ? null : n - 1);
  }

  private static InetAddress address(SocketAddress a) {
    return a instanceof InetSocketAddress s ? s.getAddress() : null;
  }
}
