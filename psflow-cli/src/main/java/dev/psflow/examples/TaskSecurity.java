package dev.psflow.examples;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.exec.SessionOptions;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a program's task talks to the cluster: mutual TLS with the certificates of {@code tlsDir}
 * (see {@link TlsConfig} for its layout), or plaintext when {@code insecure} — which must be asked
 * for, and is warned about on every task. Also where the task's SaveV2/RestoreV2 may write and read:
 * {@code checkpointRoot}, else the program's log dir, else the JVM's temporary directory. The
 * choice is checked when a server or client session is made, so flags that need no server
 * ({@code --download_only}) work without either. Immutable.
 *
 * <pre>{@code
 * TaskSecurity s = new TaskSecurity(Path.of("certs"), false, null);
 * Server server = Server.create(cluster, "ps", 0, s.serverOptions(cluster, "ps", 0, null));
 * }</pre>
 *
 * @param tlsDir the cluster's certificates ({@code --tls_dir}), or null
 * @param insecure plaintext ({@code --insecure})
 * @param checkpointRoot {@code --checkpoint_root}, or null
 */
public record TaskSecurity(Path tlsDir, boolean insecure, Path checkpointRoot) {
  private static final Logger LOG = LoggerFactory.getLogger(TaskSecurity.class);

  /** The options of task {@code index} of {@code job}'s server; {@code logDir} (may be null) is the default root. */
  public ServerOptions serverOptions(ClusterSpec cluster, String job, int index, Path logDir) {
    return serverOptions(ServerOptions.DEFAULTS, cluster, job, index, logDir);
  }

  /** As {@link #serverOptions(ClusterSpec, String, int, Path)}, on top of {@code base} (its limits, its wire). */
  public ServerOptions serverOptions(ServerOptions base, ClusterSpec cluster, String job, int index, Path logDir) {
    requireChoice();
    Path root = checkpointRoot != null ? checkpointRoot : logDir;
    ServerOptions o = base.withCheckpointRoot(root);
    String task = ClusterSpec.taskName(job, index) + " at " + cluster.address(job, index);
    if (insecure) {
      LOG.warn("{} serves in PLAINTEXT (--insecure): anyone who can reach its port can read, change and reset the "
          + "model and run any graph there, and no caller can be authorized; use --tls_dir on a shared network", task);
      return o;
    }
    o = o.withTls(TlsConfig.forTask(tlsDir, job, index));
    LOG.info("{} speaks mutual TLS with the certificates of {}; its SaveV2/RestoreV2 stay under {}", task, tlsDir,
        o.effectiveCheckpointRoot());
    return o;
  }

  /** {@code options} for a session from outside the cluster's tasks: with the client certificate, or plaintext. */
  public SessionOptions client(SessionOptions options) {
    requireChoice();
    if (insecure) {
      LOG.warn("connecting in PLAINTEXT (--insecure): what this client sends and receives can be read and changed "
          + "on the way");
      return options;
    }
    return options.withTls(TlsConfig.forClient(tlsDir));
  }

  private void requireChoice() {
    if (tlsDir != null && insecure) {
      throw new IllegalArgumentException("give --tls_dir or --insecure, not both");
    }
    if (tlsDir == null && !insecure) {
      throw new IllegalArgumentException("psflow tasks speak mutual TLS: give --tls_dir=DIR with the cluster's "
          + "certificates (psflow certs --ps_hosts=.. --worker_hosts=.. --out=DIR makes them), or --insecure for "
          + "plaintext (then anyone who can reach the ports owns the cluster)");
    }
  }
}
