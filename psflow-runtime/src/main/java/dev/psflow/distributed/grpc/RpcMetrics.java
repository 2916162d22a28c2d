package dev.psflow.distributed.grpc;

import dev.psflow.distributed.TaskMetrics;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientStreamTracer;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Puts each RPC a task serves or makes into its {@link TaskMetrics}: count and latency by method
 * and peer task, and the message bytes each way. Each call also says which task makes it (the
 * {@code psflow-caller} header), so the server can label its side by peer and remember when each
 * worker was last heard from; a header that is no task name is "client" (a session, {@code psflow
 * status}). Stream tracers only count and time (no blocking, no allocation past the call's own):
 * data points are cached per method and peer. Thread-safe.
 */
final class RpcMetrics {
  static final Metadata.Key<String> CALLER = Metadata.Key.of("psflow-caller", Metadata.ASCII_STRING_MARSHALLER);
  /** The most distinct peers labelled per method; more (a peer making up names) count as "other". */
  private static final int MAX_PEERS = 256;

  private RpcMetrics() {}

  /** The calling task a call's headers name, or "client" when they name none. */
  static String caller(Metadata headers) {
    String c = headers.get(CALLER);
    return c != null && c.startsWith("/job:") && c.length() <= 200 ? c : "client";
  }

  /** Records every call served here, labelled by the calling task. */
  static ServerStreamTracer.Factory serverTracer(TaskMetrics metrics) {
    Map<String, Map<String, TaskMetrics.Rpc>> cache = new ConcurrentHashMap<>();
    return new ServerStreamTracer.Factory() {
      @Override
      public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        Map<String, TaskMetrics.Rpc> byPeer = cache.computeIfAbsent(fullMethodName, m -> new ConcurrentHashMap<>());
        String peer = caller(headers);
        TaskMetrics.Rpc rpc = byPeer.get(peer);
        if (rpc == null) {
          String p = byPeer.size() < MAX_PEERS ? peer : "other";
          rpc = byPeer.computeIfAbsent(p, x -> metrics.rpc(TaskMetrics.Side.SERVER, bare(fullMethodName), x));
        }
        return new Server(rpc);
      }
    };
  }

  private static final class Server extends ServerStreamTracer {
    private final TaskMetrics.Rpc rpc;
    private final long start = System.nanoTime();

    Server(TaskMetrics.Rpc rpc) {
      this.rpc = rpc;
    }

    @Override
    public void inboundWireSize(long bytes) {
      rpc.bytesIn().inc(bytes);
    }

    @Override
    public void outboundWireSize(long bytes) {
      rpc.bytesOut().inc(bytes);
    }

    @Override
    public void streamClosed(Status status) {
      rpc.done(System.nanoTime() - start);
    }
  }

  /**
   * Names {@code self} (read at each call: the task is known once it serves; null: none) as the
   * caller of every call on a channel to {@code peer}, and records them in {@code metrics} (null: off).
   */
  static ClientInterceptor client(Supplier<String> self, TaskMetrics metrics, String peer) {
    Map<String, ClientStreamTracer.Factory> tracers = new ConcurrentHashMap<>();
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        CallOptions o = options;
        if (metrics != null) {
          ClientStreamTracer.Factory f = tracers.computeIfAbsent(method.getFullMethodName(),
              m -> clientTracer(metrics.rpc(TaskMetrics.Side.CLIENT, bare(m), peer)));
          o = options.withStreamTracerFactory(f);
        }
        String me = self.get();
        ClientCall<Q, R> call = next.newCall(method, o);
        if (me == null) {
          return call;
        }
        return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(CALLER, me);
            super.start(listener, headers);
          }
        };
      }
    };
  }

  private static ClientStreamTracer.Factory clientTracer(TaskMetrics.Rpc rpc) {
    return new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
        long start = System.nanoTime();
        return new ClientStreamTracer() {
          @Override
          public void inboundWireSize(long bytes) {
            rpc.bytesIn().inc(bytes);
          }

          @Override
          public void outboundWireSize(long bytes) {
            rpc.bytesOut().inc(bytes);
          }

          @Override
          public void streamClosed(Status status) {
            rpc.done(System.nanoTime() - start);
          }
        };
      }
    };
  }

  /** "RunGraph" of "psflow.WorkerService/RunGraph". */
  private static String bare(String fullMethodName) {
    return fullMethodName.substring(fullMethodName.lastIndexOf('/') + 1);
  }
}
