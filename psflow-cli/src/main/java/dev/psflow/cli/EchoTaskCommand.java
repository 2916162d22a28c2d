package dev.psflow.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code psflow echo-task} (hidden): a stand-in program for testing local-cluster. Like a real
 * cluster, a ps task listens on its port until it is stopped, and a worker first waits until it
 * can connect to every ps task; it then prints its cluster flags and pid, waits {@code --seconds}
 * and exits with {@code --exit_code}. Those two take one value per worker ({@code --exit_code=3,0}:
 * worker0 exits 3, worker1 and the next ones 0).
 */
@Command(name = "echo-task", hidden = true,
    description = "Test program for local-cluster: ps listens until stopped; a worker reaches every ps, then exits.")
public final class EchoTaskCommand implements Callable<Integer>, BackupWorkers {
  private static final long CONNECT_TIMEOUT_MILLIS = 60_000;

  @Option(names = "--job_name", required = true)
  String jobName;

  @Option(names = "--task_index", required = true)
  int taskIndex;

  @Option(names = "--ps_hosts", required = true)
  String psHosts;

  @Option(names = "--worker_hosts", required = true)
  String workerHosts;

  @Option(names = SecurityFlags.TLS_DIR)
  String tlsDir;

  @Option(names = SecurityFlags.INSECURE)
  boolean insecure;

  @Option(names = "--exit_code", split = ",", defaultValue = "0", description = "Each worker's exit code.")
  List<Integer> exitCodes;

  @Option(names = "--seconds", split = ",", defaultValue = "0", description = "How long each worker runs before it exits.")
  List<Double> seconds;

  @Option(names = "--backup_workers", defaultValue = "0", description = "How many non-chief workers the job may lose.")
  int backupWorkers;

  @Override
  public int maxLostWorkers(int workers) {
    return backupWorkers;
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    String[] ps = psHosts.split(",");
    if (jobName.equals("ps")) {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("ps stopping")));
      try (ServerSocket server = new ServerSocket()) {
        server.bind(address(ps[taskIndex]));
        printFlags();
        while (true) {
          server.accept().close(); // serves until it is stopped
        }
      }
    }
    for (String host : ps) {
      connect(address(host));
    }
    printFlags();
    Thread.sleep(Math.round(forThisTask(seconds) * 1000));
    int exitCode = forThisTask(exitCodes);
    System.out.println("exiting with code " + exitCode);
    return exitCode;
  }

  private <T> T forThisTask(List<T> perWorker) {
    return perWorker.get(Math.min(taskIndex, perWorker.size() - 1));
  }

  private void printFlags() {
    System.out.println("job_name=" + jobName + " task_index=" + taskIndex + " ps_hosts=" + psHosts
        + " worker_hosts=" + workerHosts + " pid=" + ProcessHandle.current().pid());
    if (tlsDir != null) {
      String[] files = new java.io.File(tlsDir).list();
      System.out.println("tls_dir=" + tlsDir + " holds " + (files == null ? "nothing" : String.join(",",
          java.util.Arrays.stream(files).sorted().toList())));
    }
    if (insecure) {
      System.out.println("insecure");
    }
    System.err.println("a line on stderr");
  }

  private static void connect(InetSocketAddress ps) throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + CONNECT_TIMEOUT_MILLIS;
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(ps, 1000);
        return;
      } catch (IOException e) {
        if (System.currentTimeMillis() > deadline) {
          throw new IOException("cannot reach ps at " + ps + ": " + e.getMessage(), e);
        }
        Thread.sleep(50);
      }
    }
  }

  private static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }
}
