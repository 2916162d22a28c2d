package dev.psflow.cli;

import dev.psflow.distributed.ServerLimits;
import dev.psflow.distributed.ServerOptions;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The flags that bound what peers may make a task's server hold ({@link ServerLimits}), and the
 * interface it listens on ({@code --bind_host}), mixed into every program that starts a server.
 * Defaults are {@link ServerLimits#DEFAULTS} and the task's own address.
 */
final class ServerLimitOptions {
  @Option(names = "--max_tensor_bytes", paramLabel = "BYTES", description = "The largest tensor the task's server "
      + "accepts or allocates; a graph or request needing a larger one fails RESOURCE_EXHAUSTED naming the op and "
      + "the shape (default: a quarter of the maximum heap, -Xmx).")
  Long maxTensorBytes;

  @Option(names = "--max_pending_recvs_per_peer", paramLabel = "N", defaultValue = "10000",
      description = "RecvTensor calls one peer address may have waiting on the task (default: ${DEFAULT-VALUE}).")
  int maxPendingRecvsPerPeer;

  @Option(names = "--max_graphs_per_session", paramLabel = "N", defaultValue = "1000",
      description = "Graphs one session may register on the task (default: ${DEFAULT-VALUE}).")
  int maxGraphsPerSession;

  @Option(names = "--max_connections_per_peer", paramLabel = "N", defaultValue = "256",
      description = "Connections one peer address may hold open to the task; more are closed at once (default: ${DEFAULT-VALUE}).")
  int maxConnectionsPerPeer;

  @Option(names = "--connection_idle_secs", paramLabel = "SECONDS", defaultValue = "300",
      description = "Close a connection that has had no call for this long (default: ${DEFAULT-VALUE}).")
  long connectionIdleSecs;

  @Option(names = "--abandoned_step_secs", paramLabel = "SECONDS", defaultValue = "60",
      description = "Abort a step that nothing has run on the task for this long but that still holds state there "
          + "(RecvTensor calls for a step that never comes, tensors never taken) (default: ${DEFAULT-VALUE}).")
  long abandonedStepSecs;

  ServerLimits limits() {
    positive(maxPendingRecvsPerPeer, "--max_pending_recvs_per_peer");
    positive(maxGraphsPerSession, "--max_graphs_per_session");
    positive(maxConnectionsPerPeer, "--max_connections_per_peer");
    positive(connectionIdleSecs, "--connection_idle_secs");
    positive(abandonedStepSecs, "--abandoned_step_secs");
    ServerLimits l = ServerLimits.DEFAULTS;
    if (maxTensorBytes != null) {
      positive(maxTensorBytes, "--max_tensor_bytes");
      l = l.withMaxTensorBytes(maxTensorBytes);
    }
    return l.withMaxPendingRecvsPerPeer(maxPendingRecvsPerPeer).withMaxGraphsPerSession(maxGraphsPerSession)
        .withMaxConnectionsPerPeer(maxConnectionsPerPeer).withConnectionIdle(Duration.ofSeconds(connectionIdleSecs))
        .withAbandonedStep(Duration.ofSeconds(abandonedStepSecs));
  }

  // Where the server listens belongs with what it holds: both shape the one ServerOptions every program's server gets.
  @Option(names = "--bind_host", paramLabel = "HOST", description = "The interface the task's server listens on, "
      + "e.g. 0.0.0.0 for all of them as TensorFlow's servers do (default: the host of the task's own address; peers "
      + "reach it by that address either way). The Kubernetes manifests use 0.0.0.0: a pod's service name resolves "
      + "only once the pod runs.")
  String bindHost;

  ServerOptions serverOptions() {
    return ServerOptions.DEFAULTS.withLimits(limits()).withBindHost(bindHost);
  }

  private static void positive(long v, String flag) {
    if (v <= 0) {
      throw new UserErrors.UsageException(flag + " must be positive, got " + v);
    }
  }
}
