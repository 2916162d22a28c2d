package dev.psflow.cli;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.Transport;
import dev.psflow.distributed.WorkerClient;
import dev.psflow.distributed.WorkerClient.WorkerStatus;
import dev.psflow.exec.StatusException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code psflow status}: asks every task of a running cluster for its status (GetStatus) and
 * prints a table: each task up or not, its incarnation, global step, live steps, queue and
 * accumulator sizes, then each worker's last step as the ps tasks saw it and when they last heard
 * from it. Exit code 0 when every task answered, 1 otherwise.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Print each task of a running cluster: up or not, incarnation, global step, live steps, "
        + "queues and accumulators, and each worker's last step seen.")
public final class StatusCommand implements Callable<Integer> {
  @Option(names = "--ps_hosts", required = true, description = "Comma-separated host:port of the ps tasks.")
  String psHosts;

  @Option(names = "--worker_hosts", required = true, description = "Comma-separated host:port of the worker tasks.")
  String workerHosts;

  @Option(names = SecurityFlags.TLS_DIR, paramLabel = "DIR", description = "The cluster's certificates: ca.crt and "
      + "client.crt/.key (psflow certs makes them).")
  Path tlsDir;

  @Option(names = SecurityFlags.INSECURE, description = "Plaintext, for a cluster started with --insecure.")
  boolean insecure;

  @Option(names = "--timeout_secs", defaultValue = "5", description = "How long to wait for each task's answer "
      + "(default: ${DEFAULT-VALUE}).")
  double timeoutSecs;

  @Override
  public Integer call() {
    if ((tlsDir == null) == !insecure) {
      throw new UserErrors.UsageException("give --tls_dir=DIR with the cluster's certificates, or --insecure for a "
          + "plaintext cluster");
    }
    if (!(timeoutSecs > 0)) {
      throw new UserErrors.UsageException("--timeout_secs must be positive, got " + timeoutSecs);
    }
    ClusterSpec cluster = ClusterSpec.fromFlags(psHosts, workerHosts);
    Transport wire = Transport.load().withTls(tlsDir == null ? null : TlsConfig.forClient(tlsDir));
    try {
      List<String> tasks = new ArrayList<>();
      List<String> addresses = new ArrayList<>();
      List<String> workers = new ArrayList<>();
      for (String job : List.of("ps", "worker")) {
        for (int i = 0; i < cluster.numTasks(job); i++) {
          tasks.add(ClusterSpec.taskName(job, i));
          addresses.add(cluster.address(job, i));
          if (job.equals("worker")) {
            workers.add(ClusterSpec.taskName(job, i));
          }
        }
      }
      List<CompletableFuture<WorkerStatus>> calls = new ArrayList<>();
      for (int i = 0; i < tasks.size(); i++) {
        WorkerClient c = wire.connectWorker(tasks.get(i), addresses.get(i));
        calls.add(c.getStatus(Math.round(timeoutSecs * 1000)));
      }
      List<StatusTable.Answer> answers = new ArrayList<>();
      boolean allUp = true;
      for (int i = 0; i < tasks.size(); i++) {
        String task = tasks.get(i);
        try {
          answers.add(new StatusTable.Answer(task, addresses.get(i), calls.get(i).join(), null));
        } catch (CompletionException e) {
          StatusException s = StatusException.from(e.getCause() != null ? e.getCause() : e);
          answers.add(new StatusTable.Answer(task, addresses.get(i), null, s.code() + " " + firstLine(s)));
          allUp = false;
        }
      }
      System.out.print(StatusTable.format(answers, workers));
      return allUp ? 0 : 1;
    } finally {
      wire.close();
    }
  }

  private static String firstLine(StatusException s) {
    String m = String.valueOf(s.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
