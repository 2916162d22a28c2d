package dev.psflow.bench.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Both systems get the same example flags; each is started as a JVM of its own. */
class ContenderTest {
  private static final Contender.Job SYNC_JOB = new Contender.Job(Workload.SYNC, 300, Path.of("/data"),
      "127.0.0.1:1", "127.0.0.1:2,127.0.0.1:3", Path.of("/logs/run1"));

  @Test
  void aPsflowTaskIsMnistReplicaWithBinPsflowsJvmFlags() {
    Contender.Psflow p = new Contender.Psflow("java", List.of("-XX:+UseParallelGC", "-Xss2m"),
        List.of("-XX:+UseParallelGC", "-Xss2m", "-XX:TieredStopAtLevel=1"),
        List.of("-XX:+UseParallelGC", "-Xss2m", "-Dworker"), Path.of("psflow.jar"), List.of("--insecure"),
        Path.of("bin/psflow"), List.of(), false);
    assertThat(p.taskCommand(SYNC_JOB, "worker", 1)).as("a worker task's own JVM flags").containsExactly("java",
        "-XX:+UseParallelGC", "-Xss2m", "-Dworker", "-jar",
        "psflow.jar", "mnist-replica", "--job_name=worker", "--task_index=1", "--ps_hosts=127.0.0.1:1",
        "--worker_hosts=127.0.0.1:2,127.0.0.1:3", "--hidden_units=100", "--train_steps=300", "--batch_size=100",
        "--learning_rate=0.01", "--data_dir=/data", "--sync_replicas", "--log_dir=/logs/run1/worker1",
        "--checkpoint_root=/logs/run1", "--insecure");
    assertThat(p.taskCommand(SYNC_JOB, "ps", 0)).as("the ps writes the chief's checkpoints")
        .contains("--checkpoint_root=/logs/run1");
    assertThat(p.taskCommand(SYNC_JOB, "ps", 0)).as("a ps task's own JVM flags")
        .startsWith("java", "-XX:+UseParallelGC", "-Xss2m", "-XX:TieredStopAtLevel=1", "-jar");
    assertThat(p.localCommand(SYNC_JOB)).contains("mnist").doesNotContain("mnist-replica", "--insecure",
        "-XX:TieredStopAtLevel=1");
  }

  @Test
  void psflowsMainJobIsTheReadmesLocalClusterCommandWithTheSameFlags() {
    Contender.Psflow p = new Contender.Psflow("java", List.of(), List.of(), List.of(), Path.of("psflow.jar"),
        List.of("--tls_dir=/certs"), Path.of("/home/bin/psflow"), List.of("--x=1"), false);
    Contender.Job main = new Contender.Job(Workload.MAIN, 2000, Path.of("/data"), null, null, Path.of("/logs/run1"));
    assertThat(p.mainJobCommand(main)).hasValue(List.of("/home/bin/psflow", "local-cluster", "--ps=1", "--workers=2",
        "mnist-replica", "--hidden_units=100", "--train_steps=2000", "--batch_size=100", "--learning_rate=0.01",
        "--data_dir=/data", "--log_dir=/logs/run1", "--x=1"));
    assertThat(p.mainJobCommand(main).orElseThrow()).as("local-cluster makes the run's own certificates")
        .doesNotContain("--tls_dir=/certs");
    Contender.Psflow plaintext = new Contender.Psflow("java", List.of(), List.of(), List.of(), Path.of("psflow.jar"),
        List.of("--insecure"), Path.of("bin/psflow"), List.of(), true);
    assertThat(plaintext.mainJobCommand(main).orElseThrow()).as("--insecure is local-cluster's own flag")
        .startsWith("bin/psflow", "local-cluster", "--ps=1", "--workers=2", "--insecure", "mnist-replica")
        .containsOnlyOnce("--insecure");
  }

  @Test
  void theReferenceRunsFromItsTargetWithTheSameFlags(@TempDir Path dir) throws IOException {
    Files.createDirectories(dir.resolve("target/classes/reference"));
    Files.createDirectories(dir.resolve("target/lib"));
    Files.writeString(dir.resolve("target/classes/reference/MnistReplica.class"), "");
    Contender.TensorFlow tf = new Contender.TensorFlow("java", dir);
    String target = dir.resolve("target").toString();
    assertThat(tf.taskCommand(SYNC_JOB, "ps", 0)).containsExactly("java", "-cp",
        target + "/classes:" + target + "/lib/*", "reference.MnistReplica", "--job_name=ps", "--task_index=0",
        "--ps_hosts=127.0.0.1:1", "--worker_hosts=127.0.0.1:2,127.0.0.1:3", "--hidden_units=100",
        "--train_steps=300", "--batch_size=100", "--learning_rate=0.01", "--data_dir=/data", "--sync_replicas=true");
    assertThat(tf.localCommand(SYNC_JOB)).contains("--job_name=local");
    assertThat(tf.mainJobCommand(SYNC_JOB)).as("its README starts the tasks by hand").isEmpty();
    assertThat(tf.unsupported(Workload.asyncWith(2, 100))).isEqualTo("the reference runs one ps task only");
    assertThat(tf.unsupported(Workload.ASYNC)).isNull();
  }

  @Test
  void anUnbuiltReferenceIsOneLineSayingHowToBuildIt(@TempDir Path dir) {
    assertThatThrownBy(() -> new Contender.TensorFlow("java", dir))
        .hasMessageContaining("the reference is not built")
        .hasMessageContaining("package -DskipTests")
        .hasMessageNotContaining("\n");
  }

  @Test
  void theIdealPayloadIsEveryParameterPulledAndItsGradientPushed() {
    assertThat(Workload.ASYNC.parameters()).isEqualTo(79_510);
    assertThat(Workload.ASYNC.idealWireBytesPerStep()).isEqualTo(636_080);
    assertThat(Workload.asyncWith(1, 1600).parameters()).isEqualTo(1_272_010);
  }
}
