package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cli.PsflowInJvm.Result;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** {@code psflow local-cluster} with real task processes running the hidden {@code echo-task} program. */
class LocalClusterCommandTest {
  /** Runs the psflow command line in this JVM, capturing what it prints. */
  private static Result psflow(String... args) {
    return PsflowInJvm.run(args);
  }

  private static List<ProcessHandle> leftoverTasks() {
    return ProcessHandle.current().descendants()
        .filter(p -> p.isAlive() && p.info().commandLine().orElse("").contains("echo-task"))
        .toList();
  }

  @Test
  @DisplayName("runs 1 ps and 2 workers with the cluster flags, prefixes their lines, stops the ps, exits 0")
  void runsAWholeCluster() {
    Result r = psflow("local-cluster", "--ps=1", "--workers=2", "echo-task", "--seconds=0.2");

    assertThat(r.code()).isZero();
    Matcher layout = Pattern.compile("local-cluster: echo-task on ps (127\\.0\\.0\\.1:\\d+), workers "
        + "(127\\.0\\.0\\.1:\\d+,127\\.0\\.0\\.1:\\d+)").matcher(r.out());
    assertThat(layout.find()).as("the cluster layout line").isTrue();
    String flags = " ps_hosts=" + layout.group(1) + " worker_hosts=" + layout.group(2) + " pid=";
    assertThat(r.out())
        .contains("[ps0] job_name=ps task_index=0" + flags)
        .contains("[worker0] job_name=worker task_index=0" + flags)
        .contains("[worker1] job_name=worker task_index=1" + flags)
        .contains("[worker0] a line on stderr")
        .contains("[worker1] exiting with code 0")
        .contains("[ps0] ps stopping"); // SIGTERM ran the ps's shutdown hook: a graceful stop
    assertThat(r.outLines()).allMatch(l -> l.matches("(\\[(ps0|worker0|worker1)\\] |local-cluster: ).*"),
        "every line whole, with its task in front");
    assertThat(r.err()).doesNotContain("local-cluster:");
    assertThat(leftoverTasks()).isEmpty();
  }

  @Test
  @DisplayName("a ps task's JVM runs at C1 only, with the C1 tasks' flags first so that its other flags win")
  void aPsTaskRunsAtC1Only() {
    List<String> java = List.of("/jdk/bin/java", "-Xss2m", "-XX:TieredStopAtLevel=4", "-jar", "psflow.jar");
    List<String> c1 = LocalClusterCommand.c1Flags("-XX:TieredStopAtLevel=1\n-XX:AOTCache=/a b/psflow.aot\n");

    assertThat(LocalClusterCommand.withRoleFlags(java, c1)).containsExactly("/jdk/bin/java",
        "-XX:TieredStopAtLevel=1", "-XX:AOTCache=/a b/psflow.aot", "-Xss2m", "-XX:TieredStopAtLevel=4", "-jar",
        "psflow.jar");
    assertThat(LocalClusterCommand.c1Flags("")).as("a launcher started without bin/psflow")
        .containsExactly("-XX:TieredStopAtLevel=1");
    assertThat(LocalClusterCommand.psFlags("-XX:TieredStopAtLevel=1\n-XX:MaxNewSize=256m", "-XX:TieredStopAtLevel=1"))
        .as("a ps task's own, with its young generation's limit").containsExactly("-XX:TieredStopAtLevel=1",
            "-XX:MaxNewSize=256m");
    assertThat(LocalClusterCommand.psFlags("", "")).as("a launcher started without bin/psflow")
        .containsExactly("-XX:TieredStopAtLevel=1");
  }

  @Test
  @DisplayName("the tasks split the machine's cores among their collectors, one thread each at least")
  void theTasksSplitTheCoresAmongTheirCollectors() {
    assertThat(LocalClusterCommand.gcThreadsFlag(2, 3)).isEqualTo("-XX:ParallelGCThreads=1");
    assertThat(LocalClusterCommand.gcThreadsFlag(16, 3)).isEqualTo("-XX:ParallelGCThreads=5");
    assertThat(LocalClusterCommand.gcThreadsFlag(1, 1)).isEqualTo("-XX:ParallelGCThreads=1");
    List<String> java = List.of("/jdk/bin/java", "-XX:ParallelGCThreads=4", "-jar", "psflow.jar");
    assertThat(LocalClusterCommand.withRoleFlags(java, List.of(LocalClusterCommand.gcThreadsFlag(2, 3))))
        .as("a user's own setting (PSFLOW_JAVA_OPTS, among the launcher's flags) comes later and wins")
        .containsExactly("/jdk/bin/java", "-XX:ParallelGCThreads=1", "-XX:ParallelGCThreads=4", "-jar", "psflow.jar");
  }

  @Test
  @DisplayName("a task with C2 gets the flags bin/jvm-flags.sh gives a JVM with C2, one per line, in place of the launcher's")
  void aC2TaskGetsTheC2Flags() {
    List<String> java = List.of("/jdk/bin/java", "-Xss2m", "-jar", "psflow.jar");
    List<String> c2 = LocalClusterCommand.flagList("--add-modules\njdk.incubator.vector\n-XX:AOTCache=/a b/psflow-c2.aot");

    assertThat(LocalClusterCommand.withRoleFlags(java, c2)).containsExactly("/jdk/bin/java", "--add-modules",
        "jdk.incubator.vector", "-XX:AOTCache=/a b/psflow-c2.aot", "-Xss2m", "-jar", "psflow.jar");
    assertThat(LocalClusterCommand.flagList("")).isEmpty();
  }

  @Test
  @DisplayName("a worker of a replica program runs at C1 only on Linux x86-64, where psflow ships OpenBLAS; any other keeps C2")
  void aReplicaWorkerRunsAtC1OnlyWhereOpenBlasIs() {
    assertThat(LocalClusterCommand.nativeGemmWorker("mnist-replica", "Linux", "amd64")).isTrue();
    assertThat(LocalClusterCommand.nativeGemmWorker("in-graph-replica", "Linux", "amd64")).isTrue();
    assertThat(LocalClusterCommand.nativeGemmWorker("mnist-replica", "Linux", "aarch64")).isFalse();
    assertThat(LocalClusterCommand.nativeGemmWorker("mnist-replica", "Mac OS X", "x86_64")).isFalse();
    assertThat(LocalClusterCommand.nativeGemmWorker("embedding-replica", "Linux", "amd64")).isFalse();
    assertThat(LocalClusterCommand.nativeGemmWorker("toy", "Linux", "amd64")).isFalse();
  }

  @Test
  @DisplayName("a task gets the launcher's JVM flags less those bin/jvm-flags.sh gave the launcher alone; a user's own stay")
  void aTaskLeavesTheLaunchersOwnC1FlagBehind() {
    List<String> launcher = List.of("-XX:TieredStopAtLevel=1", "-XX:AOTCache=/a b/psflow.aot", "-Xss2m",
        "-Dpsflow.launcher_jvm_flags=-XX:TieredStopAtLevel=1\n-XX:AOTCache=/a b/psflow.aot",
        "-Dpsflow.c1_task_jvm_flags=-XX:TieredStopAtLevel=1\n-XX:AOTCache=/a b/psflow-task.aot",
        "-Dpsflow.ps_task_jvm_flags=-XX:TieredStopAtLevel=1\n-XX:MaxNewSize=256m",
        "-Dpsflow.c2_task_jvm_flags=--add-modules\njdk.incubator.vector", "-agentlib:jdwp=transport=dt_socket",
        "-Dpsflow.local_cluster.parent_pid=1", "-XX:TieredStopAtLevel=1", "-Xmx1g");

    assertThat(LocalClusterCommand.taskJvmFlags(launcher, List.of("-XX:TieredStopAtLevel=1", "-XX:AOTCache=/a b/psflow.aot")))
        .containsExactly("-Xss2m", "-XX:TieredStopAtLevel=1", "-Xmx1g");
    assertThat(LocalClusterCommand.taskJvmFlags(List.of("-Xss2m", "-XX:TieredStopAtLevel=1"), List.of()))
        .as("a launcher started without bin/psflow names none").containsExactly("-Xss2m", "-XX:TieredStopAtLevel=1");
  }

  @Test
  @DisplayName("every task gets --tls_dir with throw-away certificates for each task, deleted at the end")
  void tlsByDefault() {
    Result r = psflow("local-cluster", "--ps=1", "--workers=1", "echo-task");

    assertThat(r.code()).isZero();
    Matcher m = Pattern.compile("\\[worker0\\] tls_dir=(\\S+) holds (\\S+)").matcher(r.out());
    assertThat(m.find()).as("worker0's tls_dir line").isTrue();
    assertThat(m.group(2)).isEqualTo("ca.crt,ca.key,client.crt,client.key,ps-0.crt,ps-0.key,worker-0.crt,worker-0.key");
    assertThat(r.out()).contains("mutual TLS with the certificates of " + m.group(1) + " (made for this run)")
        .contains("[ps0] tls_dir=" + m.group(1));
    assertThat(java.nio.file.Path.of(m.group(1))).doesNotExist();
  }

  @Test
  @DisplayName("--insecure: every task gets --insecure and no certificates")
  void insecureOnRequest() {
    Result r = psflow("local-cluster", "--ps=1", "--workers=1", "--insecure", "echo-task");

    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("in plaintext (--insecure)").contains("[ps0] insecure").contains("[worker0] insecure")
        .doesNotContain("tls_dir=");
  }

  @Test
  @DisplayName("a worker exiting 3 stops the cluster (not waiting for the others) and is named; exit code 1")
  void failingWorkerFailsTheCluster() {
    long start = System.nanoTime();
    Result r = psflow("local-cluster", "--ps=1", "--workers=2", "echo-task", "--exit_code=3,0", "--seconds=0,60");

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().lines()).containsExactly("local-cluster: worker0 exited with code 3");
    assertThat(r.out()).contains("[worker0] exiting with code 3").doesNotContain("[worker1] exiting");
    assertThat((System.nanoTime() - start) / 1e9).as("seconds").isLessThan(45);
    assertThat(leftoverTasks()).isEmpty();
  }

  @Test
  @DisplayName("a ps that dies before the workers finish fails the cluster instead of hanging it")
  void deadPsFailsTheCluster() {
    long start = System.nanoTime();
    Result r = psflow("local-cluster", "--ps=1", "--workers=1", "--kill=ps0@1", "echo-task", "--seconds=60");

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).contains("local-cluster: killing ps0 (--kill=ps0@1)");
    assertThat(r.err().lines()).containsExactly("local-cluster: ps0 exited with code 137 before the workers finished");
    assertThat((System.nanoTime() - start) / 1e9).as("seconds").isLessThan(45);
    assertThat(leftoverTasks()).isEmpty();
  }

  @Test
  @DisplayName("--kill with --restart-on-failure: the killed worker is started again and the cluster succeeds")
  void killedWorkerIsRestarted() {
    Result r = psflow("local-cluster", "--ps=1", "--workers=2", "--restart-on-failure", "--kill=worker0@1",
        "echo-task", "--seconds=2,0");

    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("local-cluster: killing worker0 (--kill=worker0@1)")
        .contains("local-cluster: worker0 exited with code 137; restarting it")
        .contains("[worker0] exiting with code 0");
    assertThat(r.out()).containsOnlyOnce("[ps0] job_name=ps"); // the ps was not restarted
    assertThat(leftoverTasks()).isEmpty();
  }

  @Test
  @DisplayName("--kill=TASK@after:REGEX kills the task once, when a line of any task first matches")
  void killAfterALine() {
    // worker0 runs 10 s, long enough to be running when worker1 prints its first line.
    Result r = psflow("local-cluster", "--ps=1", "--workers=2", "--restart-on-failure",
        "--kill=worker0@after:job_name=worker task_index=1 ", "echo-task", "--seconds=10,0");

    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("local-cluster: killing worker0 (--kill=worker0@after:job_name=worker task_index=1 )")
        .contains("local-cluster: worker0 exited with code 137; restarting it")
        .containsOnlyOnce("local-cluster: killing worker0")
        .contains("[worker0] exiting with code 0");
    assertThat(leftoverTasks()).isEmpty();
  }

  @Test
  @DisplayName("with backup workers a lost non-chief worker is reported in one line and the job goes on to exit 0")
  void lostBackupWorkerIsReportedAndTheJobGoesOn() {
    Result r = psflow("local-cluster", "--ps=1", "--workers=3", "--kill=worker2@1", "echo-task", "--backup_workers=1",
        "--seconds=4,4,60");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .containsOnlyOnce("local-cluster: worker2 exited with code 137; going on without it (backup worker 1 of at "
            + "most 1 the job can lose)")
        .contains("[worker0] exiting with code 0")
        .contains("[worker1] exiting with code 0");
    assertThat(r.err()).isEmpty();
    assertThat(leftoverTasks()).isEmpty();
  }

  @Test
  @DisplayName("losing more backup workers than the job can stops it, naming the worker; exit code 1")
  void losingTooManyBackupWorkersFailsTheJob() {
    Result r = psflow("local-cluster", "--ps=1", "--workers=3", "--kill=worker1@1", "--kill=worker2@1.5", "echo-task",
        "--backup_workers=1", "--seconds=60");

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).contains("local-cluster: worker1 exited with code 137; going on without it")
        .contains("local-cluster: the job cannot go on without worker2: 1 backup worker was lost already, the most it "
            + "can lose");
    assertThat(r.err().lines()).containsExactly("local-cluster: worker2 exited with code 137");
    assertThat(leftoverTasks()).isEmpty();
  }

  @Test
  @DisplayName("with backup workers the job ends with the chief: workers still running a grace period later are stopped")
  void theJobEndsWithTheChief() {
    Result r = psflow("local-cluster", "--ps=1", "--workers=2", "echo-task", "--backup_workers=1", "--seconds=0.5,60");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("[worker0] exiting with code 0")
        .contains("local-cluster: the chief has ended; stopping worker1")
        .doesNotContain("[worker1] exiting");
    assertThat(leftoverTasks()).isEmpty();
  }

  @Test
  @DisplayName("a task restarts after a kill any number of times, after crashes at most MAX_CRASH_RESTARTS times")
  void restartBudget() {
    TaskProcess t = new TaskProcess("worker0", false, List.of("true"), null);
    for (int i = 0; i < LocalCluster.MAX_CRASH_RESTARTS; i++) {
      assertThat(t.mayRestart(LocalCluster.MAX_CRASH_RESTARTS)).isTrue();
    }
    assertThat(t.mayRestart(LocalCluster.MAX_CRASH_RESTARTS)).isFalse();
  }

  @Nested
  @DisplayName("flag mistakes: one line naming the flag, exit code 2, no process started")
  class FlagErrors {
    private void assertUsageError(String expected, String... args) {
      Result r = psflow(args);
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err()).contains(expected);
      assertThat(r.out()).isEmpty();
    }

    @Test
    void noPs() {
      assertUsageError("--ps must be at least 1, got 0", "local-cluster", "--ps=0", "echo-task");
    }

    @Test
    void noWorkers() {
      assertUsageError("--workers must be at least 1, got 0", "local-cluster", "--workers=0", "echo-task");
    }

    @Test
    void missingProgram() {
      assertUsageError("PROGRAM", "local-cluster", "--ps=1");
    }

    @Test
    void unknownProgram() {
      Result r = psflow("local-cluster", "mnist-replicas");
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err()).contains("unknown PROGRAM 'mnist-replicas'; one of: ").contains("mnist-replica")
          .doesNotContain("echo-task, ").doesNotContain("local-cluster, ");
    }

    @Test
    void localClusterIsNoProgram() {
      assertUsageError("unknown PROGRAM 'local-cluster'", "local-cluster", "local-cluster", "echo-task");
    }

    @Test
    void clusterFlagsBelongToLocalCluster() {
      assertUsageError("--job_name is set by local-cluster", "local-cluster", "echo-task", "--job_name=ps");
      assertUsageError("--worker_hosts is set by local-cluster", "local-cluster", "echo-task", "--worker_hosts", "x");
      assertUsageError("--tls_dir is set by local-cluster", "local-cluster", "echo-task", "--tls_dir=certs");
      assertUsageError("--insecure is set by local-cluster", "local-cluster", "echo-task", "--insecure");
    }

    @Test
    @DisplayName("flags after PROGRAM are the program's, even --ps")
    void flagsAfterProgramAreTheProgramsOwn() {
      assertUsageError("--task_index is set by local-cluster", "local-cluster", "echo-task", "--ps=0", "--task_index=1");
    }

    @Test
    void badKill() {
      assertUsageError("--kill=worker2@1: there is no task worker2", "local-cluster", "--kill=worker2@1", "echo-task");
      assertUsageError("--kill=worker1: expected TASK@SECONDS or TASK@after:REGEX", "local-cluster", "--kill=worker1",
          "echo-task");
      assertUsageError("--kill=ps0@after:step (: not a regular expression: Unclosed group", "local-cluster",
          "--kill=ps0@after:step (", "echo-task");
    }
  }
}
