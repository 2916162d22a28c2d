package dev.psflow.distributed.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Who is calling: the caller's IP address, put in the gRPC {@link Context} of each call so that
 * handlers can count what one peer holds (per-peer limits), and the task it says it is (its
 * {@code psflow-caller} header: unauthenticated, for reporting only). Stateless and thread-safe.
 */
final class Peers implements ServerInterceptor {
  private static final Context.Key<String> ADDRESS = Context.key("psflow-peer-address");
  private static final Context.Key<String> CALLER = Context.key("psflow-caller");

  /** The calling peer's IP address, or "unknown" outside a call. */
  static String current() {
    String a = ADDRESS.get();
    return a == null ? "unknown" : a;
  }

  /** The task the current call says it comes from ({@link RpcMetrics#CALLER}), or "" outside a call or when it names none. */
  static String caller() {
    String c = CALLER.get();
    return c == null ? "" : c;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    String caller = RpcMetrics.caller(headers);
    Context c = Context.current().withValue(ADDRESS, host(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)))
        .withValue(CALLER, caller.equals("client") ? "" : caller);
    return Contexts.interceptCall(c, call, headers, next);
  }

  private static String host(SocketAddress a) {
    return a instanceof InetSocketAddress s && s.getAddress() != null ? s.getAddress().getHostAddress() : String.valueOf(a);
  }
}
