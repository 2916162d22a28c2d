package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/jvm-flags.sh passes an ahead-of-time cache only while it matches the jars: JDK 25 prints
 * "[error][aot]" lines on every JVM's output for a cache recorded from other jars. A ps task's JVM,
 * a replica worker's and local-cluster's launcher run at C1 only, without the Vector API's module
 * and with the C1 cache; every other JVM has the module and the C2 cache.
 */
class JvmFlagsScriptTest {
  private static final Path SCRIPT = Path.of(System.getProperty("psflow.home", "..")).resolve("bin/jvm-flags.sh");
  private static final Instant RECORDED = Instant.parse("2026-01-02T00:00:00Z");

  @TempDir Path root;
  private Path cache;
  private Path c2Cache;
  private Path jar;
  private Path libJar;

  @BeforeEach
  void aBuildWithACacheRecordedAfterIt() throws IOException {
    Path target = Files.createDirectories(root.resolve("psflow-cli/target/lib")).getParent();
    jar = touch(target.resolve("psflow.jar"), RECORDED.minusSeconds(60));
    libJar = touch(target.resolve("lib/grpc-core.jar"), RECORDED.minusSeconds(3600));
    cache = touch(target.resolve("psflow.aot"), RECORDED);
    c2Cache = touch(target.resolve("psflow-c2.aot"), RECORDED);
  }

  @Test
  void aCacheNewerThanEveryJarIsPassed() throws Exception {
    assertThat(flags(25)).contains("-XX:AOTCache=" + c2Cache + "\n").doesNotContain("-XX:AOTCache=" + cache);
    assertThat(run("PSFLOW_JAVA_MAJOR=25", "mnist-replica --job_name=ps"))
        .contains("-XX:AOTCache=" + cache + "\n").doesNotContain("-XX:AOTCache=" + c2Cache);
  }

  @Test
  void aJvmAtC1OnlyHasNoVectorModuleAndDoesNotReplayTheCachesProfilesOnJdk25() throws Exception {
    String ps = run("PSFLOW_JAVA_MAJOR=25", "mnist-replica --job_name=ps");
    assertThat(ps).doesNotContain("jdk.incubator.vector")
        .contains("-XX:AOTCache=" + cache + "\n-XX:+UnlockDiagnosticVMOptions\n-XX:-AOTReplayTraining\n");
    assertThat(run("PSFLOW_JAVA_MAJOR=26", "mnist-replica --job_name=ps"))
        .as("the diagnostic flag was measured on JDK 25 only").contains("-XX:AOTCache=" + cache)
        .doesNotContain("AOTReplayTraining").doesNotContain("UnlockDiagnosticVMOptions");
    assertThat(run("PSFLOW_AOT_CACHE=0 PSFLOW_JAVA_MAJOR=25", "mnist-replica --job_name=ps"))
        .as("without the cache nothing to replay").doesNotContain("AOTReplayTraining");
    assertThat(run("PSFLOW_JAVA_MAJOR=25", "toy")).contains("--add-modules\njdk.incubator.vector\n")
        .doesNotContain("AOTReplayTraining");
  }

  @Test
  void aJarRebuiltSinceTheCacheLeavesItOut() throws Exception {
    touch(jar, RECORDED.plusSeconds(1));
    assertThat(flags(25)).doesNotContain("AOTCache").contains("-XX:+UseParallelGC");
    assertThat(run("PSFLOW_JAVA_MAJOR=25", "mnist-replica --job_name=ps")).doesNotContain("AOTCache");
  }

  @Test
  void eachCacheIsJudgedOnItsOwn() throws Exception {
    touch(c2Cache, RECORDED.minusSeconds(7200));
    assertThat(flags(25)).doesNotContain("AOTCache");
    assertThat(run("PSFLOW_JAVA_MAJOR=25", "mnist-replica --job_name=ps")).contains("-XX:AOTCache=" + cache);
  }

  @Test
  void aDependencyNewerThanTheCacheLeavesItOut() throws Exception {
    touch(libJar, RECORDED.plusSeconds(1));
    assertThat(flags(25)).doesNotContain("AOTCache");
  }

  @Test
  void nettyMayUseUnsafeOnTheJdksThatTakeTheFlag() throws Exception {
    assertThat(flags(25)).contains("\n--sun-misc-unsafe-memory-access=allow\n");
    assertThat(flags(23)).contains("\n--sun-misc-unsafe-memory-access=allow\n");
    assertThat(flags(21)).doesNotContain("sun-misc-unsafe-memory-access");
    assertThat(flags(22)).doesNotContain("sun-misc-unsafe-memory-access");
    assertThat(flags(26)).doesNotContain("sun-misc-unsafe-memory-access");
  }

  @Test
  void aJdkOlderThan25GetsNoCacheFlag() throws Exception {
    assertThat(flags(21)).doesNotContain("AOTCache");
  }

  @Test
  void psflowAotCache0LeavesItOut() throws Exception {
    assertThat(run("PSFLOW_AOT_CACHE=0 PSFLOW_JAVA_MAJOR=25")).doesNotContain("AOTCache");
  }

  @Test
  void aPsTaskRunsAtC1OnlyBeforeTheUsersOwnFlags() throws Exception {
    for (String args : new String[] {"mnist-replica --job_name=ps --task_index=0", "mnist-replica --job_name ps"}) {
      String flags = run("PSFLOW_JAVA_MAJOR=25 PSFLOW_JAVA_OPTS=-XX:TieredStopAtLevel=4", args);
      assertThat(flags).as(args).contains("-XX:TieredStopAtLevel=1\n");
      assertThat(flags.indexOf("-XX:TieredStopAtLevel=1")).as("before the user's PSFLOW_JAVA_OPTS, which win")
          .isLessThan(flags.indexOf("-XX:TieredStopAtLevel=4"));
    }
    assertThat(run("PSFLOW_JAVA_MAJOR=25", "embedding-replica --job_name=worker --task_index=0"))
        .doesNotContain("TieredStopAtLevel");
  }

  @Test
  void aReplicaWorkerRunsAtC1OnlyWhereOpenBlasIsAsLocalClusterStartsOne() throws Exception {
    boolean here = LocalClusterCommand.nativeGemmWorker("mnist-replica", System.getProperty("os.name"),
        System.getProperty("os.arch"));
    for (String args : new String[] {"mnist-replica --job_name=worker --task_index=0",
        "in-graph-replica --job_name worker --task_index=1"}) {
      String flags = run("PSFLOW_JAVA_MAJOR=25", args);
      if (here) {
        assertThat(flags).as(args).contains("-XX:TieredStopAtLevel=1\n");
      } else {
        assertThat(flags).as(args).doesNotContain("TieredStopAtLevel");
      }
    }
  }

  @Test
  void localMnistTrainingRunsAtC1OnlyWhereOpenBlasIsWithoutTheVectorModule() throws Exception {
    boolean here = LocalClusterCommand.nativeGemmWorker("mnist-replica", System.getProperty("os.name"),
        System.getProperty("os.arch"));
    String flags = run("PSFLOW_JAVA_MAJOR=25", "mnist --train_steps=10");
    if (here) {
      assertThat(flags).contains("-XX:TieredStopAtLevel=1\n").doesNotContain("jdk.incubator.vector");
    } else {
      assertThat(flags).doesNotContain("TieredStopAtLevel").contains("jdk.incubator.vector");
    }
    assertThat(run("PSFLOW_JAVA_MAJOR=25", "toy")).as("another program keeps C2 and psflow's vector kernels")
        .doesNotContain("TieredStopAtLevel").contains("jdk.incubator.vector");
  }

  @Test
  void psflowJitChoosesTheKindOfJvmForAnyProgramButNotForLocalClustersLauncher() throws Exception {
    assertThat(run("PSFLOW_JAVA_MAJOR=25 PSFLOW_JIT=c2", "mnist"))
        .doesNotContain("TieredStopAtLevel").contains("--add-modules\njdk.incubator.vector\n");
    assertThat(run("PSFLOW_JAVA_MAJOR=25 PSFLOW_JIT=c2", "mnist-replica --job_name=ps"))
        .doesNotContain("TieredStopAtLevel").contains("-XX:MaxNewSize=256m\n");
    assertThat(run("PSFLOW_JAVA_MAJOR=25 PSFLOW_JIT=c1", "toy"))
        .contains("-XX:TieredStopAtLevel=1\n").doesNotContain("jdk.incubator.vector");
    assertThat(run("PSFLOW_JAVA_MAJOR=25 PSFLOW_JIT=c2", "local-cluster --ps=1 --workers=2 mnist-replica"))
        .startsWith("-XX:TieredStopAtLevel=1\n");
  }

  @Test
  void anUnknownPsflowJitIsOneLineNamingItAndTheChoices() throws Exception {
    Process p = new ProcessBuilder("bash", "-c", ". '" + SCRIPT + "'; PSFLOW_JIT=c3 psflow_jvm_flags '" + root + "' mnist")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).isEqualTo(1);
    assertThat(out).isEqualTo("psflow: PSFLOW_JIT=c3 is not a JVM kind; use c1 (C1 only, products on OpenBLAS) "
        + "or c2 (C2 and the Vector API's kernels), or leave it unset\n");
  }

  @Test
  void localClustersLauncherRunsAtC1OnlyOnItsOwnCacheAndNamesItsOwnFlagsAndItsTasksOneFlagPerLine() throws Exception {
    Path launcherCache = touch(cache.resolveSibling("psflow-launcher.aot"), RECORDED);
    String flags = run("PSFLOW_JAVA_MAJOR=25 PSFLOW_JAVA_OPTS=-Xmx1g", "local-cluster --ps=1 --workers=2 mnist-replica");
    String replayOff = "\n-XX:+UnlockDiagnosticVMOptions\n-XX:-AOTReplayTraining";
    String young = "\n-XX:MaxNewSize=48m";
    String psYoung = "\n-XX:MaxNewSize=256m\n-Xlog:gc+ergo=error";
    String launcher = "-XX:TieredStopAtLevel=1\n-XX:AOTCache=" + launcherCache + replayOff + young;
    String c1 = "-XX:TieredStopAtLevel=1\n-XX:AOTCache=" + cache + replayOff;
    assertThat(flags).startsWith(launcher + "\n-Dpsflow.launcher_jvm_flags=" + launcher + "\n"
        + "-Dpsflow.c1_task_jvm_flags=" + c1 + young + "\n"
        + "-Dpsflow.ps_task_jvm_flags=" + c1 + psYoung + "\n"
        + "-Dpsflow.c2_task_jvm_flags=--add-modules\njdk.incubator.vector\n-XX:AOTCache=" + c2Cache + young + "\n");
    assertThat(flags.indexOf("-XX:TieredStopAtLevel=1")).isLessThan(flags.indexOf("-Xmx1g"));
    assertThat(run("PSFLOW_AOT_CACHE=0 PSFLOW_JAVA_MAJOR=25", "local-cluster mnist-replica")).startsWith(
        "-XX:TieredStopAtLevel=1" + young + "\n-Dpsflow.launcher_jvm_flags=-XX:TieredStopAtLevel=1" + young + "\n"
            + "-Dpsflow.c1_task_jvm_flags=-XX:TieredStopAtLevel=1" + young + "\n"
            + "-Dpsflow.ps_task_jvm_flags=-XX:TieredStopAtLevel=1" + psYoung + "\n"
            + "-Dpsflow.c2_task_jvm_flags=--add-modules\njdk.incubator.vector" + young
            + "\n--sun-misc-unsafe-memory-access=allow\n-XX:+UseParallelGC\n");
    Files.delete(launcherCache);
    assertThat(run("PSFLOW_JAVA_MAJOR=25", "local-cluster mnist-replica")).as("a build recorded before the launcher had a cache")
        .startsWith("-XX:TieredStopAtLevel=1" + young + "\n-Dpsflow.launcher_jvm_flags=-XX:TieredStopAtLevel=1" + young
            + "\n-Dpsflow.c1_task_jvm_flags=" + c1 + young + "\n");
  }

  @Test
  void aPsTasksYoungGenerationMayGrowTo256MbEveryOtherJvmsStaysAt48MbAndAUsersXmnWins() throws Exception {
    for (String args : new String[] {"mnist-replica --job_name=ps --task_index=0", "mnist-replica --job_name=worker",
        "mnist", "embedding-replica --job_name=worker"}) {
      String flags = run("PSFLOW_JAVA_MAJOR=25 PSFLOW_JAVA_OPTS=-Xmn96m", args);
      assertThat(flags).as(args).contains("-XX:NewSize=48m\n")
          .contains(args.contains("=ps") ? "-XX:MaxNewSize=256m\n" : "-XX:MaxNewSize=48m\n")
          .doesNotContain(args.contains("=ps") ? "-XX:MaxNewSize=48m" : "-XX:MaxNewSize=256m");
      assertThat(flags.indexOf("-XX:MaxNewSize")).as("before the user's PSFLOW_JAVA_OPTS, which win")
          .isLessThan(flags.indexOf("-Xmn96m"));
    }
  }

  private String flags(int javaMajor) throws Exception {
    return run("PSFLOW_JAVA_MAJOR=" + javaMajor);
  }

  private String run(String env) throws Exception {
    return run(env, "");
  }

  /** The flags psflow_jvm_flags sets for {@link #root} and a program's {@code args}, one per line. */
  private String run(String env, String args) throws Exception {
    String script = ". '" + SCRIPT + "'; " + env + " psflow_jvm_flags '" + root + "' " + args
        + "; printf '%s\\n' \"${PSFLOW_JVM_FLAGS[@]}\"";
    Process p = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  private static Path touch(Path file, Instant when) throws IOException {
    if (!Files.exists(file)) {
      Files.createFile(file);
    }
    Files.setLastModifiedTime(file, FileTime.from(when));
    return file;
  }
}
