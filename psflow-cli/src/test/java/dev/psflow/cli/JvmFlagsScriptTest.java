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
 * bin/jvm-flags.sh passes the ahead-of-time cache only while it matches the jars: JDK 25 prints
 * "[error][aot]" lines on every JVM's output for a cache recorded from other jars.
 */
class JvmFlagsScriptTest {
  private static final Path SCRIPT = Path.of(System.getProperty("psflow.home", "..")).resolve("bin/jvm-flags.sh");
  private static final Instant RECORDED = Instant.parse("2026-01-02T00:00:00Z");

  @TempDir Path root;
  private Path cache;
  private Path jar;
  private Path libJar;

  @BeforeEach
  void aBuildWithACacheRecordedAfterIt() throws IOException {
    Path target = Files.createDirectories(root.resolve("psflow-cli/target/lib")).getParent();
    jar = touch(target.resolve("psflow.jar"), RECORDED.minusSeconds(60));
    libJar = touch(target.resolve("lib/grpc-core.jar"), RECORDED.minusSeconds(3600));
    cache = touch(target.resolve("psflow.aot"), RECORDED);
  }

  @Test
  void aCacheNewerThanEveryJarIsPassed() throws Exception {
    assertThat(flags(25)).contains("-XX:AOTCache=" + cache);
  }

  @Test
  void aJarRebuiltSinceTheCacheLeavesItOut() throws Exception {
    touch(jar, RECORDED.plusSeconds(1));
    assertThat(flags(25)).doesNotContain("AOTCache").contains("-XX:+UseParallelGC");
  }

  @Test
  void aDependencyNewerThanTheCacheLeavesItOut() throws Exception {
    touch(libJar, RECORDED.plusSeconds(1));
    assertThat(flags(25)).doesNotContain("AOTCache");
  }

  @Test
  void aJdkOlderThan25GetsNoCacheFlag() throws Exception {
    assertThat(flags(21)).doesNotContain("AOTCache");
  }

  @Test
  void psflowAotCache0LeavesItOut() throws Exception {
    assertThat(run("PSFLOW_AOT_CACHE=0 PSFLOW_JAVA_MAJOR=25")).doesNotContain("AOTCache");
  }

  private String flags(int javaMajor) throws Exception {
    return run("PSFLOW_JAVA_MAJOR=" + javaMajor);
  }

  /** The flags psflow_jvm_flags sets for {@link #root}, one per line. */
  private String run(String env) throws Exception {
    String script = ". '" + SCRIPT + "'; " + env + " psflow_jvm_flags '" + root + "'; printf '%s\\n' \"${PSFLOW_JVM_FLAGS[@]}\"";
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
