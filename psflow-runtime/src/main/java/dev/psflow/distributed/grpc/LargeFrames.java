package dev.psflow.distributed.grpc;

import io.grpc.netty.shaded.io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.handler.codec.ByteToMessageDecoder;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2CodecUtil;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Exception;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Settings;
import io.grpc.netty.shaded.io.netty.util.AsciiString;
import java.util.function.Consumer;

/**
 * HTTP/2 DATA frames of up to {@link #MAX_FRAME_BYTES} (1 MiB) on every connection, where HTTP/2
 * starts at 16 KiB and gRPC-java never raises it.
 *
 * <p>Every frame goes through Netty's HTTP/2 codec, its flow controllers and gRPC's deframer on its
 * own, so a replica step's 318 KB of parameters, and as much again of gradients, was about twenty
 * frames each way. With 1 MiB each tensor pull is one frame: the 6000-step async job (one ps, two
 * workers, TLS) used 0.97x the CPU and wall time of the same build at 16 KiB (4 alternated pairs,
 * {@code -Dpsflow.grpc.maxFrameBytes=16384}; docs/benchmarks.md). A connection holds at most one
 * frame it is still reading, so the announced size bounds what a peer can make it buffer.
 *
 * <p>gRPC sends its own SETTINGS when a connection opens; the larger frame size goes in a second
 * SETTINGS frame, written once the peer's first SETTINGS have arrived (HTTP/2 allows any number),
 * through the handler of each connection's negotiator. The peer acknowledges it before it writes
 * any larger frame, so the connection's reader has applied it by then; a connection's first call
 * may still cross in 16 KiB frames. {@code -Dpsflow.grpc.maxFrameBytes=16384} keeps HTTP/2's
 * default, to measure against.
 *
 * <p>A large frame arrives in many pieces: each socket read, and each TLS record's plaintext, is
 * one. Netty's HTTP/2 handler gathers a frame's pieces before it decodes the frame, by default
 * copying each into one buffer that it grows as they come (and copies again as it grows). Here it
 * keeps them as the parts of one composite buffer instead, and the frame's payload reaches gRPC,
 * and the tensor's array, as slices of them: at 1600 hidden units (5 MB tensors) that copy and
 * its growth were 5.8% of a ps's CPU and took new 16 MiB chunks of Netty's pool, each zeroed
 * (async-profiler; docs/benchmarks.md). {@code -Dpsflow.grpc.copyFrames=true} restores the copy,
 * to measure against.
 */
final class LargeFrames {
  static final String PROPERTY = "psflow.grpc.maxFrameBytes";
  static final int MAX_FRAME_BYTES =
      Math.min(Integer.getInteger(PROPERTY, 1 << 20), Http2CodecUtil.MAX_FRAME_SIZE_UPPER_BOUND);
  static final boolean COPY_FRAMES = Boolean.getBoolean("psflow.grpc.copyFrames");

  private LargeFrames() {}

  /** {@code n}, whose connections also announce the larger frame size once the peer's first SETTINGS arrive. */
  static InternalProtocolNegotiator.ProtocolNegotiator negotiator(InternalProtocolNegotiator.ProtocolNegotiator n) {
    return MAX_FRAME_BYTES <= 16 << 10 ? n : onEachConnection(n, LargeFrames::announce);
  }

  /** {@code n}, which first hands each connection's HTTP/2 handler to {@code hook}, before the connection starts. */
  static InternalProtocolNegotiator.ProtocolNegotiator onEachConnection(InternalProtocolNegotiator.ProtocolNegotiator n,
      Consumer<GrpcHttp2ConnectionHandler> hook) {
    return new InternalProtocolNegotiator.ProtocolNegotiator() {
      @Override
      public AsciiString scheme() {
        return n.scheme();
      }

      @Override
      public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
        hook.accept(grpcHandler);
        return n.newHandler(grpcHandler);
      }

      @Override
      public void close() {
        n.close();
      }
    };
  }

  /** A channel's negotiators: {@code n}, for a target whose port defaults to {@code defaultPort}. */
  static InternalProtocolNegotiator.ClientFactory clientFactory(InternalProtocolNegotiator.ProtocolNegotiator n,
      int defaultPort) {
    return new InternalProtocolNegotiator.ClientFactory() {
      @Override
      public InternalProtocolNegotiator.ProtocolNegotiator newNegotiator() {
        return n;
      }

      @Override
      public int getDefaultPort() {
        return defaultPort;
      }
    };
  }

  private static void announce(GrpcHttp2ConnectionHandler handler) {
    if (!COPY_FRAMES) {
      handler.setCumulator(ByteToMessageDecoder.COMPOSITE_CUMULATOR);
    }
    Http2ConnectionDecoder decoder = handler.decoder();
    decoder.frameListener(new Http2FrameListenerDecorator(decoder.frameListener()) {
      private boolean sent;

      @Override
      public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) throws Http2Exception {
        super.onSettingsRead(ctx, settings);
        if (!sent) {
          sent = true;
          handler.encoder().writeSettings(ctx, new Http2Settings().maxFrameSize(MAX_FRAME_BYTES), ctx.newPromise());
        }
      }
    });
  }
}
