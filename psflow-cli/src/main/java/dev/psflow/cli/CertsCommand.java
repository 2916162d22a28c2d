package dev.psflow.cli;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.TfConfig;
import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.certs.ClusterCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code psflow certs}: makes a cluster's certificates for mutual TLS — a new CA, one certificate
 * and key per task of the cluster spec and one for clients — into {@code --out}, the directory
 * every task and client then gets as {@code --tls_dir}. The cluster comes from
 * {@code --ps_hosts/--worker_hosts}, {@code --cluster} (TF_CONFIG's "cluster" JSON) or TF_CONFIG.
 */
@Command(name = "certs", mixinStandardHelpOptions = true,
    description = {"Make a CA and the certificates of every task of a cluster (and of a client) for --tls_dir.",
        "Each certificate names its role (OU=ps|worker|chief|client) and task (CN=worker-1), with SANs for",
        "localhost, 127.0.0.1, ::1 and its task's host."},
    footer = {"", "Example: psflow certs --ps_hosts=ps0.example:2222 --worker_hosts=w0.example:2222,w1.example:2222 --out=certs"})
public final class CertsCommand implements Callable<Integer> {
  @Option(names = "--ps_hosts", description = "Comma-separated host:port of the ps tasks.")
  String psHosts;

  @Option(names = "--worker_hosts", description = "Comma-separated host:port of the worker tasks.")
  String workerHosts;

  @Option(names = "--cluster", paramLabel = "JSON",
      description = "The cluster as TF_CONFIG's \"cluster\" object, e.g. {\"chief\": [\"c:2222\"], \"ps\": [\"p:2222\"]}; "
          + "a chief job becomes worker 0 and the workers follow, as every program reads TF_CONFIG.")
  String clusterJson;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where to write them (a new directory).")
  Path out;

  @Option(names = "--days", defaultValue = "365", description = "Days the certificates are valid (default: ${DEFAULT-VALUE}).")
  int days;

  @Override
  public Integer call() {
    if (days < 1) {
      throw new UserErrors.UsageException("--days must be at least 1, got " + days);
    }
    ClusterSpec cluster = cluster();
    List<Path> written = ClusterCertificates.write(cluster, out, Duration.ofDays(days));
    System.out.println("Wrote the certificates of " + cluster + " to " + out + ", valid " + days + " days:");
    for (Path p : written) {
      System.out.println("  " + p.getFileName());
    }
    System.out.println("Give each task --tls_dir=" + out + " (it reads ca.crt and its own <job>-<index>.crt/.key; a "
        + "client reads client.crt/.key). " + TlsConfig.CA_KEY + " signs new certificates: keep it off the cluster's "
        + "machines.");
    return 0;
  }

  private ClusterSpec cluster() {
    if (clusterJson != null && (psHosts != null || workerHosts != null)) {
      throw new UserErrors.UsageException("give --cluster or --ps_hosts/--worker_hosts, not both");
    }
    if (clusterJson != null) {
      // Folded as every program folds TF_CONFIG, so the chief's certificate is worker-0's.
      return TfConfig.parse("{\"cluster\": " + clusterJson + "}").withChiefAsWorkerZero().cluster();
    }
    if (psHosts != null || workerHosts != null) {
      return ClusterSpec.fromFlags(psHosts, workerHosts);
    }
    TfConfig config = TfConfigEnv.read();
    if (config == null) {
      throw new UserErrors.UsageException("no cluster: give --ps_hosts and --worker_hosts, --cluster=JSON, or set TF_CONFIG");
    }
    return config.cluster();
  }
}
