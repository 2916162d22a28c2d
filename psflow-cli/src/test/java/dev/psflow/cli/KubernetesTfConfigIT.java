package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TFJob's tasks as Kubeflow's training operator starts them, as real processes: each gets only
 * the TF_CONFIG the operator's genTFConfigJSONStr writes for it (job names chief, ps, worker;
 * addresses {@code <tfjob>-<type>-<index>.<namespace>.svc:<port>}; {@code "environment":"cloud"})
 * and no cluster flags. The chief trains as worker 0, the worker as worker 1.
 *
 * <p>The host names resolve to 127.0.0.1 through the JDK's hosts-file resolver
 * ({@code -Djdk.net.hosts.file}, which replaces the system resolver for the whole JVM: the servers'
 * binds and gRPC's name resolution alike), so no psflow code knows it is under test. All tasks
 * share 127.0.0.1, so each needs its own port, where in a cluster every pod would use 2222; the
 * JSON is otherwise the operator's, byte for byte (Go's json.Marshal: sorted jobs, no spaces).
 */
class KubernetesTfConfigIT {
  @TempDir Path dir;

  @Test
  void chiefPsAndWorkerTrainFromTheOperatorsTfConfigAlone() throws Exception {
    List<Integer> ports = FreePorts.pick(3);
    String chief = "mnist-chief-0.default.svc:" + ports.get(0);
    String ps = "mnist-ps-0.default.svc:" + ports.get(1);
    String worker = "mnist-worker-0.default.svc:" + ports.get(2);
    String cluster = "{\"chief\":[\"" + chief + "\"],\"ps\":[\"" + ps + "\"],\"worker\":[\"" + worker + "\"]}";
    Path hosts = Files.writeString(dir.resolve("hosts"), """
        127.0.0.1 localhost
        127.0.0.1 mnist-chief-0.default.svc
        127.0.0.1 mnist-ps-0.default.svc
        127.0.0.1 mnist-worker-0.default.svc
        """);
    List<String> jvm = List.of("-Djdk.net.hosts.file=" + hosts);
    Path certs = dir.resolve("certs");
    PsflowProcess.Result made = PsflowProcess.run(60, "certs", "--cluster=" + cluster, "--out=" + certs);
    assertThat(made.exitCode()).as(made.output()).isZero();
    assertThat(certs.resolve("worker-0.crt")).as("the chief's certificate is worker 0's").exists();
    assertThat(certs.resolve("worker-1.crt")).exists();

    String[] args = {"mnist-replica", "--train_steps=200", "--tls_dir=" + certs};
    List<PsflowProcess.Running> tasks = new ArrayList<>();
    try {
      tasks.add(PsflowProcess.start(Map.of("TF_CONFIG", tfConfig(cluster, "ps")), jvm, args));
      tasks.add(PsflowProcess.start(Map.of("TF_CONFIG", tfConfig(cluster, "worker")), jvm, args));
      PsflowProcess.Running chiefTask = PsflowProcess.start(Map.of("TF_CONFIG", tfConfig(cluster, "chief")), jvm, args);
      tasks.add(chiefTask);
      PsflowProcess.Result c = chiefTask.await(240);
      PsflowProcess.Result w = tasks.get(1).await(60);
      assertThat(c.exitCode()).as(c.output()).isZero();
      assertThat(w.exitCode()).as(w.output()).isZero();
      assertThat(c.output())
          .contains("TF_CONFIG task chief:0 runs as worker 0 (the chief)")
          .contains("Worker 0: Initializing session...")
          .contains("After 200 training step(s), validation cross entropy = ");
      assertThat(w.output())
          .contains("TF_CONFIG task worker:0 runs as worker 1")
          .contains("Worker 1: Waiting for session to be initialized...")
          .containsPattern("Worker 1: training step \\d+ done \\(global step: \\d+\\)")
          .contains("After 200 training step(s), validation cross entropy = ");
      assertThat(PsflowProcess.valueAfter(c, "test accuracy = ")).isGreaterThanOrEqualTo(0.85);
      PsflowProcess.Running psTask = tasks.get(0);
      assertThat(psTask.process().isAlive()).as("the ps serves until stopped; output:%n%s", psTask.output()).isTrue();
      assertThat(psTask.output()).contains("TF_CONFIG task ps:0 runs as ps 0");
    } finally {
      for (PsflowProcess.Running t : tasks) {
        t.close();
      }
    }
  }

  /** genTFConfigJSONStr's output for task 0 of {@code type}. */
  private static String tfConfig(String cluster, String type) {
    return "{\"cluster\":" + cluster + ",\"task\":{\"type\":\"" + type + "\",\"index\":0},\"environment\":\"cloud\"}";
  }
}
