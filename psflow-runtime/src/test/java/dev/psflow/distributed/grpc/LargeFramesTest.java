package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.certs.ClusterCertificates;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Exception;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection announces HTTP/2 DATA frames of up to 1 MiB (HTTP/2 starts at 16 KiB, and gRPC-java
 * never raises it), so a parameter tensor of the replica example (318 KB) crosses in one frame each
 * way, in plaintext and over mutual TLS; without the announcement it takes twenty. A frame that
 * arrives in pieces (TLS records) reaches gRPC as a view of those pieces, not copied into one buffer.
 */
@Timeout(60)
class LargeFramesTest {
  private static final int TENSOR_BYTES = 318_040;
  private static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("test.Echo/Echo")
      .setRequestMarshaller(HostilePeer.BYTES).setResponseMarshaller(HostilePeer.BYTES).build();

  @TempDir Path certs;

  private final AtomicInteger largestToServer = new AtomicInteger();
  private final AtomicInteger largestToClient = new AtomicInteger();
  /** How many buffers the largest DATA frame to the server was a view of. */
  private final AtomicInteger piecesOfLargestToServer = new AtomicInteger();
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aTensorCrossesInOneDataFrameEachWayInPlaintext() {
    start(LargeFrames::negotiator, InternalProtocolNegotiators.serverPlaintext(), InternalProtocolNegotiators.plaintext());

    assertThat(echo(TENSOR_BYTES)).isEqualTo(TENSOR_BYTES);

    assertThat(largestToServer.get()).isGreaterThan(TENSOR_BYTES);
    assertThat(largestToClient.get()).isGreaterThan(TENSOR_BYTES);
  }

  @Test
  void aTensorCrossesInOneDataFrameEachWayOverMutualTls() {
    ClusterSpec cluster = FreePorts.localCluster(1, 1);
    ClusterCertificates.write(cluster, certs, Duration.ofDays(1));
    SslContext serverTls = TlsCredentials.server("/job:ps/replica:0/task:0", TlsConfig.forTask(certs, "ps", 0));
    SslContext channelTls = TlsCredentials.channel(TlsConfig.forTask(certs, "worker", 0));
    start(LargeFrames::negotiator, InternalProtocolNegotiators.serverTls(serverTls),
        InternalProtocolNegotiators.tls(channelTls, null, null));

    assertThat(echo(TENSOR_BYTES)).isEqualTo(TENSOR_BYTES);

    assertThat(largestToServer.get()).isGreaterThan(TENSOR_BYTES);
    assertThat(largestToClient.get()).isGreaterThan(TENSOR_BYTES);
    assertThat(piecesOfLargestToServer.get()).as("TLS records of at most 16 KiB each, gathered without a copy")
        .isGreaterThan(1);
  }

  @Test
  void messagesLargerThanAFrameStillArriveWhole() {
    start(LargeFrames::negotiator, InternalProtocolNegotiators.serverPlaintext(), InternalProtocolNegotiators.plaintext());

    assertThat(echo(3 * LargeFrames.MAX_FRAME_BYTES + 12_345)).isEqualTo(3 * LargeFrames.MAX_FRAME_BYTES + 12_345);

    assertThat(largestToServer.get()).isEqualTo(LargeFrames.MAX_FRAME_BYTES);
    assertThat(largestToClient.get()).isEqualTo(LargeFrames.MAX_FRAME_BYTES);
  }

  @Test
  void withoutTheAnnouncementFramesStayAtHttp2sDefault16KiB() {
    start(n -> n, InternalProtocolNegotiators.serverPlaintext(), InternalProtocolNegotiators.plaintext());

    assertThat(echo(TENSOR_BYTES)).isEqualTo(TENSOR_BYTES);

    assertThat(largestToServer.get()).isEqualTo(16 << 10);
    assertThat(largestToClient.get()).isEqualTo(16 << 10);
  }

  /** Sends {@code n} bytes, which the server returns; the length of what came back. */
  private int echo(int n) {
    byte[] sent = new byte[n];
    Arrays.fill(sent, (byte) 7);
    byte[] back = ClientCalls.blockingUnaryCall(channel, ECHO, io.grpc.CallOptions.DEFAULT, sent);
    assertThat(back).isEqualTo(sent);
    return back.length;
  }

  private void start(UnaryOperator<InternalProtocolNegotiator.ProtocolNegotiator> large,
      InternalProtocolNegotiator.ProtocolNegotiator serverSide, InternalProtocolNegotiator.ProtocolNegotiator clientSide) {
    ServerServiceDefinition echo = ServerServiceDefinition.builder("test.Echo")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .build();
    try {
      server = NettyServerBuilder.forPort(0)
          .protocolNegotiator(counting(large.apply(serverSide), largestToServer, piecesOfLargestToServer))
          .flowControlWindow(GrpcTransport.FLOW_CONTROL_WINDOW)
          .withChildOption(ChannelOption.WRITE_BUFFER_WATER_MARK, GrpcTransport.WRITE_BUFFER)
          .addService(echo)
          .build()
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    NettyChannelBuilder b = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
        .overrideAuthority("127.0.0.1")
        .flowControlWindow(GrpcTransport.FLOW_CONTROL_WINDOW)
        .withOption(ChannelOption.WRITE_BUFFER_WATER_MARK, GrpcTransport.WRITE_BUFFER);
    InternalProtocolNegotiator.ProtocolNegotiator client = counting(large.apply(clientSide), largestToClient, null);
    InternalNettyChannelBuilder.setProtocolNegotiatorFactory(b, LargeFrames.clientFactory(client, 443));
    channel = b.build();
    // The announcement goes out once the peer's first SETTINGS have arrived: the connection's
    // first call may cross before it does.
    echo(1);
    largestToServer.set(0);
    largestToClient.set(0);
    piecesOfLargestToServer.set(0);
  }

  /**
   * {@code n}, recording in {@code largest} the largest DATA frame its connections receive, and in
   * {@code pieces} (unless null) how many buffers that frame's payload is a view of.
   */
  private static InternalProtocolNegotiator.ProtocolNegotiator counting(InternalProtocolNegotiator.ProtocolNegotiator n,
      AtomicInteger largest, AtomicInteger pieces) {
    return LargeFrames.onEachConnection(n, grpcHandler -> {
      Http2ConnectionDecoder decoder = grpcHandler.decoder();
      decoder.frameListener(new Http2FrameListenerDecorator(decoder.frameListener()) {
        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream)
            throws Http2Exception {
          if (data.readableBytes() > largest.getAndAccumulate(data.readableBytes(), Math::max) && pieces != null) {
            pieces.set(data.nioBufferCount());
          }
          return super.onDataRead(ctx, streamId, data, padding, endOfStream);
        }
      });
    });
  }
}
