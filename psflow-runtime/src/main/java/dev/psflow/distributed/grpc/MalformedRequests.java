package dev.psflow.distributed.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.io.InputStream;

/**
 * Answers a request that cannot be parsed with INVALID_ARGUMENT saying why. gRPC itself would
 * answer {@code UNKNOWN: Application error processing RPC} when a request marshaller throws (a
 * GraphDef nested deeper than protobuf's recursion limit of 100, truncated bytes): here each
 * method's request marshaller hands the failure on as a value instead, and the call is closed
 * with it before the service sees anything. Works with any marshaller. Stateless.
 */
final class MalformedRequests {
  /** A request that failed to parse. */
  private record Malformed(String why) {}

  private MalformedRequests() {}

  static ServerServiceDefinition guard(ServerServiceDefinition service) {
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(service.getServiceDescriptor().getName());
    for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
      b.addMethod(guard(m));
    }
    return b.build();
  }

  private static <Q, R> ServerMethodDefinition<Object, R> guard(ServerMethodDefinition<Q, R> method) {
    MethodDescriptor<Q, R> md = method.getMethodDescriptor();
    MethodDescriptor.Marshaller<Q> inner = md.getRequestMarshaller();
    MethodDescriptor.Marshaller<Object> parsing = new MethodDescriptor.Marshaller<>() {
      @Override
      @SuppressWarnings("unchecked")
      public InputStream stream(Object value) {
        return inner.stream((Q) value);
      }

      @Override
      public Object parse(InputStream stream) {
        try {
          return inner.parse(stream);
        } catch (RuntimeException | StackOverflowError e) {
          return new Malformed(describe(e));
        }
      }
    };
    MethodDescriptor<Object, R> wrapped = md.toBuilder(parsing, md.getResponseMarshaller()).build();
    ServerCallHandler<Object, R> handler = (call, headers) -> start(method, md.getBareMethodName(), call, headers);
    return ServerMethodDefinition.create(wrapped, handler);
  }

  @SuppressWarnings("unchecked")
  private static <Q, R> ServerCall.Listener<Object> start(ServerMethodDefinition<Q, R> method, String name,
      ServerCall<Object, R> call, Metadata headers) {
    // The service's handler only sends responses (R) and asks for messages: the request type is ours to change.
    ServerCall<Q, R> same = (ServerCall<Q, R>) (ServerCall<?, R>) call;
    ServerCall.Listener<Object> next = (ServerCall.Listener<Object>) method.getServerCallHandler().startCall(same, headers);
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next) {
      private boolean closed;

      @Override
      public void onMessage(Object message) {
        if (message instanceof Malformed m) {
          closed = true;
          call.close(Status.INVALID_ARGUMENT.withDescription("malformed " + name + " request: " + m.why()), new Metadata());
        } else if (!closed) {
          super.onMessage(message);
        }
      }

      @Override
      public void onHalfClose() {
        if (!closed) {
          super.onHalfClose();
        }
      }
    };
  }

  private static String describe(Throwable e) {
    if (e instanceof StackOverflowError) {
      return "it is nested too deeply to parse";
    }
    Throwable t = e;
    while (t.getCause() != null && !(t instanceof InvalidProtocolBufferException)) {
      t = t.getCause();
    }
    String m = String.valueOf(t.getMessage());
    if (m.contains("too many levels of nesting")) {
      return "its messages are nested more than 100 levels deep (protobuf's recursion limit)";
    }
    return m.isEmpty() ? t.getClass().getSimpleName() : m;
  }
}
