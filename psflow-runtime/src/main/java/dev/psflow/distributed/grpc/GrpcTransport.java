package dev.psflow.distributed.grpc;

import dev.psflow.distributed.Master;
import dev.psflow.distributed.MasterApi;
import dev.psflow.distributed.Transport;
import dev.psflow.distributed.Worker;
import dev.psflow.distributed.WorkerClient;
import dev.psflow.proto.MasterServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * gRPC over HTTP/2 (Netty): serves a task's master and worker on one port and opens one channel per
 * peer. Messages may be as large as a tensor gets (no 4 MiB wall). Worker handlers run on the transport's
 * threads and never block (waits are asynchronous); master calls, which may wait, run on virtual threads.
 * One instance per server; {@link #close()} shuts every channel down (shutdown, wait, shutdownNow).
 */
public final class GrpcTransport implements Transport {
  static final int MAX_MESSAGE_BYTES = Integer.MAX_VALUE;

  private final List<ManagedChannel> channels = new CopyOnWriteArrayList<>();

  @Override
  public Binding serve(String task, String address, Master master, Worker worker) {
    InetSocketAddress at = socketAddress(address);
    ExecutorService blocking = Executors.newVirtualThreadPerTaskExecutor();
    Server server = NettyServerBuilder.forAddress(at)
        .directExecutor()
        .callExecutor(new MasterCallsOnVirtualThreads(blocking))
        .maxInboundMessageSize(MAX_MESSAGE_BYTES)
        .addStreamTracerFactory(WireStats.serverTracer())
        .addService(new GrpcWorkerService(worker))
        .addService(new GrpcMasterService(master, blocking))
        .build();
    try {
      server.start();
    } catch (IOException e) {
      String why = e instanceof BindException || String.valueOf(e.getCause()).contains("BindException")
          ? "the address is already in use (is another task running there?)" : e.getMessage();
      throw new IllegalArgumentException("cannot start " + task + " at " + address + ": " + why);
    }
    return new Binding() {
      @Override
      public int port() {
        return server.getPort();
      }

      @Override
      public void close() {
        server.shutdown();
        try {
          if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
            server.shutdownNow();
          }
        } catch (InterruptedException e) {
          server.shutdownNow();
          Thread.currentThread().interrupt();
        }
        blocking.shutdownNow();
      }
    };
  }

  /**
   * Runs every MasterService call on a virtual thread, everything else on the transport thread. A
   * RunStep whose plan is not cached yet registers the partitions and waits for the replies; on a
   * Netty thread that wait can deadlock when a reply is due on that same thread (it did, for a
   * client in another process: in-process clients take a shortcut that skips this service).
   */
  private record MasterCallsOnVirtualThreads(Executor blocking) implements ServerCallExecutorSupplier {
    @Override
    public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call, Metadata metadata) {
      return MasterServiceGrpc.SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName()) ? blocking : null;
    }
  }

  @Override
  public WorkerClient connectWorker(String task, String address) {
    return new GrpcWorkerClient(task, address, channel(address));
  }

  @Override
  public MasterApi connectMaster(String address) {
    return new GrpcMasterClient(address, channel(address));
  }

  ManagedChannel channel(String address) {
    InetSocketAddress at = socketAddress(address);
    ManagedChannel c = NettyChannelBuilder.forAddress(at.getHostString(), at.getPort())
        .usePlaintext()
        .directExecutor()
        .maxInboundMessageSize(MAX_MESSAGE_BYTES)
        .intercept(WireStats.clientInterceptor())
        .build();
    channels.add(c);
    return c;
  }

  @Override
  public void close() {
    for (ManagedChannel c : channels) {
      c.shutdown();
    }
    for (ManagedChannel c : channels) {
      try {
        if (!c.awaitTermination(1, TimeUnit.SECONDS)) {
          c.shutdownNow();
        }
      } catch (InterruptedException e) {
        c.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    channels.clear();
  }

  static InetSocketAddress socketAddress(String address) {
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new InetSocketAddress(host, Integer.parseInt(address.substring(colon + 1)));
  }
}
