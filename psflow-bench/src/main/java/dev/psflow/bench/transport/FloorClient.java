package dev.psflow.bench.transport;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.io.File;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The worker side of {@link BareStep}: runs steps one after another, as one worker does, and prints
 * one line per window of steps with the CPU both processes spent in it.
 *
 * <pre>{@code FloorClient PORT (--tls_dir=DIR | --plaintext) WINDOW_STEPS...}</pre>
 *
 * prints, per window: {@code window STEPS client_us=.. server_us=.. total_us=.. wall_us=..} (per step).
 */
public final class FloorClient {
  private FloorClient() {}

  public static void main(String[] args) throws Exception {
    int[] windows = new int[args.length - 2];
    for (int w = 0; w < windows.length; w++) {
      windows[w] = Integer.parseInt(args[w + 2]);
    }
    for (String line : run(Integer.parseInt(args[0]), args[1], windows)) {
      System.out.println(line);
    }
  }

  /** Runs the windows of steps against the server at {@code port} and returns one line per window. */
  static List<String> run(int port, String wire, int... windows) throws Exception {
    String tlsDir = BareStep.tlsDir(wire);
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress("127.0.0.1", port)
        .directExecutor()
        .flowControlWindow(BareStep.FLOW_CONTROL_WINDOW)
        .maxInboundMessageSize(BareStep.MAX_MESSAGE_BYTES);
    if (tlsDir != null) {
      builder.sslContext(GrpcSslContexts.forClient()
          .keyManager(new File(tlsDir, "worker-0.crt"), new File(tlsDir, "worker-0.key"))
          .trustManager(new File(tlsDir, "ca.crt"))
          .build());
    } else {
      builder.usePlaintext();
    }
    ManagedChannel channel = builder.build();
    byte[][] gradients = new byte[BareStep.SIZES.length][];
    byte[][] pulls = new byte[BareStep.SIZES.length][];
    for (int i = 0; i < gradients.length; i++) {
      gradients[i] = new byte[BareStep.SIZES[i]];
      pulls[i] = BareStep.intBytes(BareStep.SIZES[i]);
    }
    List<ListenableFuture<byte[]>> inFlight = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    for (int steps : windows) {
      long client0 = BareStep.processCpuNanos();
      long server0 = serverCpu(channel);
      long t0 = System.nanoTime();
      for (int s = 0; s < steps; s++) {
        for (byte[] pull : pulls) {
          inFlight.add(ClientCalls.futureUnaryCall(channel.newCall(BareStep.PULL, CallOptions.DEFAULT), pull));
        }
        awaitAll(inFlight);
        for (byte[] gradient : gradients) {
          inFlight.add(ClientCalls.futureUnaryCall(channel.newCall(BareStep.PUSH, CallOptions.DEFAULT), gradient));
        }
        awaitAll(inFlight);
      }
      double wall = (System.nanoTime() - t0) / 1e3 / steps;
      double client = (BareStep.processCpuNanos() - client0) / 1e3 / steps;
      double server = (serverCpu(channel) - server0) / 1e3 / steps;
      lines.add(String.format(Locale.ROOT, "window %d client_us=%.0f server_us=%.0f total_us=%.0f wall_us=%.0f",
          steps, client, server, client + server, wall));
    }
    channel.shutdownNow();
    return lines;
  }

  private static void awaitAll(List<ListenableFuture<byte[]>> calls) throws Exception {
    for (ListenableFuture<byte[]> call : calls) {
      call.get();
    }
    calls.clear();
  }

  private static long serverCpu(ManagedChannel channel) {
    byte[] reply = ClientCalls.blockingUnaryCall(channel, BareStep.CPU, CallOptions.DEFAULT, new byte[0]);
    return ByteBuffer.wrap(reply).getLong();
  }
}
