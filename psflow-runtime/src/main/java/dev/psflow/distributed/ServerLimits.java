package dev.psflow.distributed;

import dev.psflow.exec.TensorSizeLimit;
import java.time.Duration;

/**
 * What one peer may make a {@link Server} hold, so that no request, and no peer sending many, can
 * take the task down or starve the others. Peers are told by their IP address. Every limit fails
 * the request over it with RESOURCE_EXHAUSTED naming the limit and its flag; nothing is dropped
 * silently. Immutable.
 *
 * <pre>{@code
 * ServerOptions o = ServerOptions.DEFAULTS.withLimits(ServerLimits.DEFAULTS.withMaxTensorBytes(1L << 30));
 * Server s = Server.create(cluster, "ps", 0, o);
 * }</pre>
 *
 * @param tensorSize the most bytes one tensor may take ({@code --max_tensor_bytes}; default a
 *     quarter of the heap), checked before allocating: at registration for known shapes, in the
 *     kernels whose output size depends on input values, and for tensors in requests
 * @param maxPendingRecvsPerPeer RecvTensor calls one peer may have waiting here at once; a call
 *     waits until its tensor is sent, its step ends, or the abandoned-step sweep drops it
 * @param maxGraphsPerSession graphs registered under one session handle
 * @param maxGraphs graphs registered on the task, all sessions together
 * @param maxConnectionsPerPeer open connections from one address; more are closed as they are accepted
 * @param connectionIdle a connection with no call for this long is closed (the peer reconnects when
 *     it needs to, transparently); a connection that never completes the HTTP/2 handshake is
 *     closed after {@link #handshakeTimeout()}
 * @param abandonedStep a step with state here but no RunGraph running here (RecvTensor calls for a
 *     step that never comes, or sent tensors nobody takes) is aborted after this long; pending
 *     RecvTensor calls fail ABORTED. Checked every quarter of it, so state goes within 1.25×.
 */
public record ServerLimits(TensorSizeLimit tensorSize, int maxPendingRecvsPerPeer, int maxGraphsPerSession,
    int maxGraphs, int maxConnectionsPerPeer, Duration connectionIdle, Duration abandonedStep) {
  public static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(20);

  public static final ServerLimits DEFAULTS = new ServerLimits(TensorSizeLimit.DEFAULT, 10_000, 1_000, 10_000, 256,
      Duration.ofMinutes(5), Duration.ofSeconds(60));

  public ServerLimits {
    positive(maxPendingRecvsPerPeer, "max_pending_recvs_per_peer");
    positive(maxGraphsPerSession, "max_graphs_per_session");
    positive(maxGraphs, "max_graphs");
    positive(maxConnectionsPerPeer, "max_connections_per_peer");
    if (connectionIdle.isNegative() || connectionIdle.isZero()) {
      throw new IllegalArgumentException("the connection idle timeout must be positive, got " + connectionIdle);
    }
    if (abandonedStep.isNegative() || abandonedStep.isZero()) {
      throw new IllegalArgumentException("the abandoned-step timeout must be positive, got " + abandonedStep);
    }
  }

  /**
   * Calls one connection may have open at once (HTTP/2's MAX_CONCURRENT_STREAMS): a peer's whole
   * RecvTensor quota and a thousand more, so the server's per-connection tables stay bounded. A
   * client with more waits for a free stream on its side.
   */
  public int maxConcurrentCallsPerConnection() {
    return (int) Math.min(Integer.MAX_VALUE, maxPendingRecvsPerPeer + 1_000L);
  }

  /** How long a new connection may take to complete the HTTP/2 handshake: 20 s, or the idle timeout if shorter. */
  public Duration handshakeTimeout() {
    return connectionIdle.compareTo(HANDSHAKE_TIMEOUT) < 0 ? connectionIdle : HANDSHAKE_TIMEOUT;
  }

  public ServerLimits withMaxTensorBytes(long bytes) {
    return new ServerLimits(new TensorSizeLimit(bytes), maxPendingRecvsPerPeer, maxGraphsPerSession, maxGraphs,
        maxConnectionsPerPeer, connectionIdle, abandonedStep);
  }

  public ServerLimits withMaxPendingRecvsPerPeer(int n) {
    return new ServerLimits(tensorSize, n, maxGraphsPerSession, maxGraphs, maxConnectionsPerPeer, connectionIdle,
        abandonedStep);
  }

  public ServerLimits withMaxGraphsPerSession(int n) {
    return new ServerLimits(tensorSize, maxPendingRecvsPerPeer, n, maxGraphs, maxConnectionsPerPeer, connectionIdle,
        abandonedStep);
  }

  public ServerLimits withMaxConnectionsPerPeer(int n) {
    return new ServerLimits(tensorSize, maxPendingRecvsPerPeer, maxGraphsPerSession, maxGraphs, n, connectionIdle,
        abandonedStep);
  }

  public ServerLimits withConnectionIdle(Duration d) {
    return new ServerLimits(tensorSize, maxPendingRecvsPerPeer, maxGraphsPerSession, maxGraphs, maxConnectionsPerPeer,
        d, abandonedStep);
  }

  public ServerLimits withAbandonedStep(Duration d) {
    return new ServerLimits(tensorSize, maxPendingRecvsPerPeer, maxGraphsPerSession, maxGraphs, maxConnectionsPerPeer,
        connectionIdle, d);
  }

  private static void positive(int v, String name) {
    if (v <= 0) {
      throw new IllegalArgumentException(name + " must be positive, got " + v);
    }
  }
}
