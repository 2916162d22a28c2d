package dev.psflow.distributed.grpc;

import io.grpc.netty.shaded.io.netty.buffer.ByteBufAllocator;
import io.grpc.netty.shaded.io.netty.handler.ssl.ApplicationProtocolNegotiator;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSessionContext;

/**
 * An SSL context whose engines decrypt every TLS record that has arrived in one call, not one
 * record per call.
 *
 * <p>gRPC asks its context for a bare engine ({@code newEngine}) and wraps it in an SslHandler;
 * Netty's OpenSSL engines made that way run in "JDK compatibility mode", where the handler hands
 * the engine one 16 KB record at a time and passes each record's plaintext up the pipeline on its
 * own: a 320 KB tensor became twenty reads of the HTTP/2 decoder and gRPC's deframer, each
 * accumulated and copied again. The engines Netty makes for its own handlers ({@code newHandler})
 * are not in that mode; this context gives gRPC those. Everything else is the wrapped context's.
 * Thread-safe as the wrapped context.
 */
final class RecordBatchingSslContext extends SslContext {
  private final SslContext context;

  RecordBatchingSslContext(SslContext context) {
    this.context = context;
  }

  @Override
  public SSLEngine newEngine(ByteBufAllocator alloc) {
    return context.newHandler(alloc).engine();
  }

  @Override
  public SSLEngine newEngine(ByteBufAllocator alloc, String peerHost, int peerPort) {
    return context.newHandler(alloc, peerHost, peerPort).engine();
  }

  @Override
  public boolean isClient() {
    return context.isClient();
  }

  @Override
  public List<String> cipherSuites() {
    return context.cipherSuites();
  }

  @Override
  @SuppressWarnings("deprecation")
  public ApplicationProtocolNegotiator applicationProtocolNegotiator() {
    return context.applicationProtocolNegotiator();
  }

  @Override
  public SSLSessionContext sessionContext() {
    return context.sessionContext();
  }
}
