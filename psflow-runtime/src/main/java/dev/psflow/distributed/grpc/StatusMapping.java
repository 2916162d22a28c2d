package dev.psflow.distributed.grpc;

import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The one place psflow's status codes meet gRPC's: both number them the same, so a failure raised
 * on any task reaches the client with its code and message unchanged.
 */
public final class StatusMapping {
  private StatusMapping() {}

  /** Our failure as a gRPC status to send back. Anything unexpected becomes INTERNAL, never UNKNOWN. */
  public static StatusRuntimeException toGrpc(Throwable t) {
    StatusException s = StatusException.from(unwrap(t));
    Code code = s.code() == Code.UNKNOWN ? Code.INTERNAL : s.code();
    return Status.fromCodeValue(code.value()).withDescription(s.getMessage()).asRuntimeException();
  }

  /** A gRPC failure seen by a client, as ours; {@code peer} names who we were talking to. */
  public static StatusException fromGrpc(Throwable t, String peer) {
    Throwable u = unwrap(t);
    if (u instanceof StatusException s) {
      return s;
    }
    Status st = Status.fromThrowable(u);
    if (st.getCode() == Status.Code.CANCELLED && st.getCause() instanceof StatusRuntimeException bad) {
      st = bad.getStatus(); // our marshaller refused a message ("Failed to read message"): its own status says why
    }
    Code code = Code.fromValue(st.getCode().value());
    String desc = st.getDescription();
    if (code == Code.CANCELLED && desc != null && desc.startsWith("RST_STREAM")) {
      // The peer reset the call: its server is shutting down (a stopping task cancels what it still
      // runs). For the caller the task went away, as when its process dies: UNAVAILABLE, recoverable.
      code = Code.UNAVAILABLE;
    }
    String tls = code == Code.UNAVAILABLE ? TlsCredentials.handshakeFailure(u) : null;
    if (tls != null) {
      return new StatusException(code, peer + " is unreachable: " + tls, u);
    }
    if (code == Code.UNAVAILABLE || code == Code.DEADLINE_EXCEEDED || desc == null) {
      String why = desc == null ? st.getCode().name() : desc;
      return new StatusException(code, peer + " is unreachable or did not answer: " + why, u);
    }
    return new StatusException(code, desc, u);
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
