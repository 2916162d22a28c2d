package dev.psflow.distributed.grpc;

import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.ByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.embedded.EmbeddedChannel;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslHandler;

/**
 * Runs the TLS record path once, in memory, while a task starts: a client and a server handler of
 * the task's own contexts shake hands and pass some megabytes each way, so that the JIT has
 * compiled the handler's wrap and unwrap (and the OpenSSL engine's calls) before the first
 * training step needs them, rather than during the first few hundred steps. The handshake also runs
 * the JDK's certificate-path check both ways (and builds its P-256 tables), which would otherwise
 * first run inside the ps's first pull of gradients. Best effort: a failure only means no warm-up.
 *
 * <p>Only where the machine has cores to spare (more than two), unless {@code -Dpsflow.tls_warmup}
 * says otherwise ({@code -Dpsflow.warmup=false} turns it off with the other warm-ups). It costs a
 * task ~0.15 s of CPU, and on two cores that the starting tasks keep busy that CPU is taken from
 * them: the README's job without it, 30 alternated pairs in three batches, 1-2.5% shorter on 1-2.7%
 * less CPU (21 of 30 shorter), a synchronous job 3% shorter (6 pairs; docs/benchmarks.md). Where a
 * core is idle while the tasks start, it runs there and the first steps find the record path compiled.
 */
final class TlsWarmup {
  static final int ROUNDS = 40;
  static final int MESSAGE_BYTES = 64 << 10;

  private TlsWarmup() {}

  static void start(SslContext server, SslContext client) {
    if (!wanted(System.getProperty("psflow.tls_warmup"), System.getProperty("psflow.warmup", "true"),
        Runtime.getRuntime().availableProcessors())) {
      return;
    }
    Thread t = new Thread(() -> run(server, client), "psflow-tls-warmup");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  /** Whether a task warms its TLS path up: {@code tlsWarmup} when set, else with more than two cores unless {@code warmup} is false. */
  static boolean wanted(String tlsWarmup, String warmup, int cores) {
    if (tlsWarmup != null) {
      return Boolean.parseBoolean(tlsWarmup);
    }
    return Boolean.parseBoolean(warmup) && cores > 2;
  }

  /** Shakes hands and passes the rounds; returns the plaintext bytes that arrived, both ways (0: it failed). */
  static long run(SslContext server, SslContext client) {
    EmbeddedChannel s = null;
    EmbeddedChannel c = null;
    try {
      s = new EmbeddedChannel(server.newHandler(ByteBufAllocator.DEFAULT));
      c = new EmbeddedChannel(client.newHandler(ByteBufAllocator.DEFAULT, "localhost", 0));
      for (int i = 0; i < 20 && !(handshaken(s) && handshaken(c)); i++) {
        pass(c, s);
        pass(s, c);
      }
      if (!(handshaken(s) && handshaken(c))) {
        return 0;
      }
      long arrived = 0;
      byte[] payload = new byte[MESSAGE_BYTES];
      for (int r = 0; r < ROUNDS; r++) {
        c.writeOutbound(c.alloc().buffer(MESSAGE_BYTES).writeBytes(payload));
        pass(c, s);
        arrived += drain(s);
        s.writeOutbound(s.alloc().buffer(MESSAGE_BYTES).writeBytes(payload));
        pass(s, c);
        arrived += drain(c);
      }
      return arrived;
    } catch (RuntimeException | Error e) {
      return 0; // warming only
    } finally {
      close(s);
      close(c);
    }
  }

  private static boolean handshaken(EmbeddedChannel ch) {
    return ch.pipeline().get(SslHandler.class).handshakeFuture().isSuccess();
  }

  /** Moves what {@code from} has written to {@code to}'s input. */
  private static void pass(EmbeddedChannel from, EmbeddedChannel to) {
    for (Object m; (m = from.readOutbound()) != null; ) {
      to.writeInbound(m);
    }
  }

  private static long drain(EmbeddedChannel ch) {
    long n = 0;
    for (Object m; (m = ch.readInbound()) != null; ) {
      n += ((ByteBuf) m).readableBytes();
      ((ByteBuf) m).release();
    }
    return n;
  }

  private static void close(EmbeddedChannel ch) {
    if (ch != null) {
      ch.finishAndReleaseAll();
    }
  }
}
