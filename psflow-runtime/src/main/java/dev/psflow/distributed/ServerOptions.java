package dev.psflow.distributed;

import dev.psflow.cluster.TlsConfig;
import java.nio.file.Path;

/**
 * Options of a {@link Server}.
 *
 * <pre>{@code
 * ServerOptions o = ServerOptions.DEFAULTS.withTls(TlsConfig.forTask(certs, "ps", 0))
 *     .withCheckpointRoot(Path.of("/data/ckpt"));
 * }</pre>
 *
 * @param peerWaitMillis how long a new session waits for the tasks it needs before failing UNAVAILABLE
 * @param transport the wire (null: the one found on the class path, gRPC)
 * @param tls this task's certificates for mutual TLS on every connection, both ways (null: plaintext,
 *     and no peer can be told from another: anyone who reaches the port may do anything)
 * @param checkpointRoot the only directory under which this task's SaveV2/RestoreV2 may write and
 *     read (null: the JVM's temporary directory, {@code java.io.tmpdir})
 * @param limits what one request or peer may make the server hold
 * @param bindHost the interface the server listens on, e.g. {@code 0.0.0.0} for all of them, as
 *     TensorFlow's servers do (null: the host of the task's own address in the cluster spec). Peers
 *     still reach it by that address; this matters where the task's name resolves only from
 *     elsewhere or only later, as a Kubernetes pod's service name while the pod starts.
 * @param metricsPort where the task serves Prometheus' {@code /metrics} on its own host: -1 off (the
 *     default), 0 any free port ({@link Server#metricsPort()} says which)
 */
public record ServerOptions(long peerWaitMillis, Transport transport, TlsConfig tls, Path checkpointRoot,
    ServerLimits limits, String bindHost, int metricsPort) {
  public static final ServerOptions DEFAULTS = new ServerOptions(120_000, null, null, null, ServerLimits.DEFAULTS, null, -1);

  public ServerOptions(long peerWaitMillis, Transport transport, TlsConfig tls, Path checkpointRoot,
      ServerLimits limits) {
    this(peerWaitMillis, transport, tls, checkpointRoot, limits, null, -1);
  }

  public ServerOptions {
    if (metricsPort < -1 || metricsPort > 65535) {
      throw new IllegalArgumentException("--metrics_port must be a port (0: any free one), got " + metricsPort);
    }
  }

  public ServerOptions withMetricsPort(int port) {
    return new ServerOptions(peerWaitMillis, transport, tls, checkpointRoot, limits, bindHost, port);
  }

  public ServerOptions withPeerWaitMillis(long millis) {
    return new ServerOptions(millis, transport, tls, checkpointRoot, limits, bindHost, metricsPort);
  }

  public ServerOptions withTransport(Transport t) {
    return new ServerOptions(peerWaitMillis, t, tls, checkpointRoot, limits, bindHost, metricsPort);
  }

  public ServerOptions withTls(TlsConfig t) {
    return new ServerOptions(peerWaitMillis, transport, t, checkpointRoot, limits, bindHost, metricsPort);
  }

  public ServerOptions withCheckpointRoot(Path root) {
    return new ServerOptions(peerWaitMillis, transport, tls, root, limits, bindHost, metricsPort);
  }

  public ServerOptions withLimits(ServerLimits l) {
    return new ServerOptions(peerWaitMillis, transport, tls, checkpointRoot, l, bindHost, metricsPort);
  }

  public ServerOptions withBindHost(String host) {
    return new ServerOptions(peerWaitMillis, transport, tls, checkpointRoot, limits, host, metricsPort);
  }

  /** The checkpoint root in force: {@link #checkpointRoot()} or the JVM's temporary directory. */
  public Path effectiveCheckpointRoot() {
    return checkpointRoot != null ? checkpointRoot : Path.of(System.getProperty("java.io.tmpdir"));
  }
}
