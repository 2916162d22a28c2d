package dev.psflow.bench.transport;

import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.stub.ServerCalls;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The ps side of {@link BareStep}: serves pulls from preallocated arrays and drops pushes, on the
 * transport threads (direct executor), with the flow-control window psflow's tasks use.
 *
 * <pre>{@code FloorServer PORT_FILE (--tls_dir=DIR | --plaintext)}</pre>
 *
 * Binds 127.0.0.1 port 0 and writes the port to PORT_FILE; runs until killed.
 */
public final class FloorServer {
  private FloorServer() {}

  public static void main(String[] args) throws Exception {
    start(Path.of(args[0]), args[1]).awaitTermination();
  }

  /** Starts the server ({@code wire} is {@code --tls_dir=DIR} or {@code --plaintext}) and writes its port. */
  static Server start(Path portFile, String wire) throws java.io.IOException {
    String tlsDir = BareStep.tlsDir(wire);
    byte[][] variables = new byte[BareStep.SIZES.length][];
    for (int i = 0; i < variables.length; i++) {
      variables[i] = new byte[BareStep.SIZES[i]];
    }
    ServerServiceDefinition service = ServerServiceDefinition.builder("psflow.bench.BareStep")
        .addMethod(BareStep.PULL, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(variables[indexOf(ByteBuffer.wrap(request).getInt())]);
          response.onCompleted();
        }))
        .addMethod(BareStep.PUSH, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(new byte[0]);
          response.onCompleted();
        }))
        .addMethod(BareStep.CPU, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(BareStep.longBytes(BareStep.processCpuNanos()));
          response.onCompleted();
        }))
        .build();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new java.net.InetSocketAddress("127.0.0.1", 0))
        .directExecutor()
        .flowControlWindow(BareStep.FLOW_CONTROL_WINDOW)
        .maxInboundMessageSize(BareStep.MAX_MESSAGE_BYTES)
        .addService(service);
    if (tlsDir != null) {
      builder.sslContext(GrpcSslContexts.forServer(new File(tlsDir, "ps-0.crt"), new File(tlsDir, "ps-0.key"))
          .trustManager(new File(tlsDir, "ca.crt"))
          .clientAuth(ClientAuth.REQUIRE)
          .build());
    }
    Server server = builder.build().start();
    Path partial = portFile.resolveSibling(portFile.getFileName() + ".tmp");
    Files.writeString(partial, Integer.toString(server.getPort()), StandardCharsets.US_ASCII);
    Files.move(partial, portFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return server;
  }

  private static int indexOf(int size) {
    for (int i = 0; i < BareStep.SIZES.length; i++) {
      if (BareStep.SIZES[i] == size) {
        return i;
      }
    }
    throw new IllegalArgumentException("no variable of " + size + " bytes");
  }
}
