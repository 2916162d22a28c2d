package dev.psflow.cli;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.TfConfig;
import dev.psflow.distributed.Server;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code psflow server}: a bare server for one task of a cluster, which serves until stopped. The
 * cluster comes from {@code --ps_hosts/--worker_hosts} or, when those are absent, from TF_CONFIG (a
 * {@code chief} job there becomes worker 0: {@link TfConfigEnv}); it
 * speaks mutual TLS ({@code --tls_dir}) or, when asked with {@code --insecure}, plaintext.
 */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Start a bare server (master + worker services) for one task and join it.")
public final class ServerCommand implements Callable<Integer> {
  @Option(names = "--job_name", description = "The task's job: ps or worker (default: TF_CONFIG's task type).")
  String jobName;

  @Option(names = "--task_index", description = "The task's index in its job (default: TF_CONFIG's task index).")
  Integer taskIndex;

  @Option(names = "--ps_hosts", description = "Comma-separated host:port of the ps tasks.")
  String psHosts;

  @Option(names = "--worker_hosts", description = "Comma-separated host:port of the worker tasks.")
  String workerHosts;

  @Mixin SecurityFlags security = new SecurityFlags();

  @Mixin ServerLimitOptions limits = new ServerLimitOptions();

  @Mixin MetricsFlags metrics = new MetricsFlags();

  @Override
  public Integer call() throws InterruptedException {
    ClusterSpec cluster;
    String job = jobName;
    Integer index = taskIndex;
    if (psHosts != null || workerHosts != null) {
      cluster = ClusterSpec.fromFlags(psHosts, workerHosts);
    } else {
      TfConfig config = TfConfigEnv.read();
      if (config == null) {
        throw new UserErrors.UsageException(
            "no cluster: give --ps_hosts and --worker_hosts, or set TF_CONFIG to {\"cluster\": ..., \"task\": ...}");
      }
      cluster = config.cluster();
      job = job != null ? job : config.taskType();
      index = index != null ? index : (config.taskIndex() >= 0 ? config.taskIndex() : null);
    }
    if (job == null || index == null) {
      throw new UserErrors.UsageException("give --job_name and --task_index (or a TF_CONFIG with a \"task\")");
    }
    Server server = Server.create(cluster, job, index,
        security.security().serverOptions(metrics.apply(limits.serverOptions()), cluster, job, index, null));
    Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
    System.out.println("Started server " + server.task() + " at " + server.target()
        + (server.metricsPort() >= 0 ? ", metrics at " + server.metricsUrl() : ""));
    server.join();
    return 0;
  }
}
