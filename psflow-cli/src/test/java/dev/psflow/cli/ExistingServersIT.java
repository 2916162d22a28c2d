package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.FreePorts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients outside the cluster, as real processes: `psflow server` tasks hold the cluster (mutual
 * TLS with the certificates `psflow certs` made), and the mnist-replica workers run with
 * --existing_servers and the client certificate, so every call they make reaches a master over
 * gRPC (the master plans and registers partitions on the other tasks, with its own worker
 * certificate, while serving RunStep).
 */
class ExistingServersIT {
  @TempDir Path certs;

  @Test
  void mnistReplicaWorkersTrainAgainstPsflowServerTasks() throws Exception {
    List<Integer> ports = FreePorts.pick(3);
    String ps = "--ps_hosts=localhost:" + ports.get(0);
    String workers = "--worker_hosts=localhost:" + ports.get(1) + ",localhost:" + ports.get(2);
    String tls = "--tls_dir=" + certs;
    assertThat(PsflowProcess.run(60, "certs", ps, workers, "--out=" + certs).exitCode()).isZero();
    List<PsflowProcess.Running> servers = new ArrayList<>();
    try {
      servers.add(PsflowProcess.start("server", "--job_name=ps", "--task_index=0", ps, workers, tls));
      servers.add(PsflowProcess.start("server", "--job_name=worker", "--task_index=0", ps, workers, tls));
      servers.add(PsflowProcess.start("server", "--job_name=worker", "--task_index=1", ps, workers, tls));
      try (PsflowProcess.Running chief = PsflowProcess.start("mnist-replica", "--job_name=worker", "--task_index=0",
              "--existing_servers", ps, workers, "--train_steps=500", tls);
          PsflowProcess.Running other = PsflowProcess.start("mnist-replica", "--job_name=worker", "--task_index=1",
              "--existing_servers", ps, workers, "--train_steps=500", tls)) {
        PsflowProcess.Result c = chief.await(300);
        PsflowProcess.Result o = other.await(300);
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(o.exitCode()).as(o.output()).isZero();
        assertThat(c.output()).contains("Using existing server at: grpc://localhost:" + ports.get(1))
            .contains("After 500 training step(s), validation cross entropy = ");
        assertThat(o.output()).contains("Using existing server at: grpc://localhost:" + ports.get(2));
        assertThat(PsflowProcess.valueAfter(c, "test accuracy = ")).isGreaterThanOrEqualTo(0.9);
      }
      for (PsflowProcess.Running s : servers) {
        assertThat(s.process().isAlive()).as("%s is still serving; output:%n%s", s.args(), s.output()).isTrue();
      }
    } finally {
      for (PsflowProcess.Running s : servers) {
        s.close();
      }
    }
  }
}
