package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/find-jdk.sh tells a JDK's version from its {@code release} file, without starting it, and asks
 * the binary only when there is none.
 */
class FindJdkScriptTest {
  private static final Path SCRIPT = Path.of(System.getProperty("psflow.home", "..")).resolve("bin/find-jdk.sh");

  @TempDir Path jvms;

  @Test
  void readsTheFeatureVersionFromTheReleaseFileWithoutStartingTheJdk() throws Exception {
    assertThat(major(jdk("temurin-25", "JAVA_VERSION=\"25.0.3\"", null))).isEqualTo("25");
    assertThat(major(jdk("jdk-21-ga", "JAVA_VERSION=\"21\"", null))).isEqualTo("21");
    assertThat(major(jdk("jdk-26-ea", "JAVA_VERSION=\"26-ea\"", null))).isEqualTo("26");
    assertThat(major(jdk("jdk-8", "JAVA_VERSION=\"1.8.0_392\"", null))).isEqualTo("8");
  }

  @Test
  void asksTheBinaryWhenThereIsNoReleaseFile() throws Exception {
    assertThat(major(jdk("no-release", null, "21"))).isEqualTo("21");
  }

  @Test
  void takesJavaHomeWhenItIsNewEnoughAndPassesOverAnOlderOne() throws Exception {
    Path jdk25 = jdk("temurin-25", "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"25.0.3\"\nJAVA_VERSION_DATE=\"2026-04-21\"", null);
    assertThat(run("JAVA_HOME='" + jdk25 + "'; psflow_find_jdk; echo \"$JAVA_HOME $PSFLOW_JAVA_MAJOR\""))
        .isEqualTo(jdk25 + " 25\n");
    Path jdk17 = jdk("jdk-17", "JAVA_VERSION=\"17.0.15\"", null);
    // the next candidates are this machine's own JDKs, if any
    assertThat(run("JAVA_HOME='" + jdk17 + "'; psflow_find_jdk; echo \"$JAVA_HOME\"")).doesNotContain(jdk17.toString());
  }

  /**
   * A fake JDK: {@code bin/javac}, and a {@code bin/java} that answers {@code -XshowSettings} with
   * {@code binaryVersion}, or fails loudly when there is none to give (it must not be started).
   */
  private Path jdk(String name, String release, String binaryVersion) throws IOException {
    Path home = Files.createDirectories(jvms.resolve(name).resolve("bin")).getParent();
    String java = binaryVersion != null
        ? "#!/bin/sh\necho '    java.specification.version = " + binaryVersion + "' >&2\n"
        : "#!/bin/sh\necho 'this JDK was started' >&2\nexit 3\n";
    script(home.resolve("bin/java"), java);
    script(home.resolve("bin/javac"), "#!/bin/sh\nexit 0\n");
    if (release != null) {
      Files.writeString(home.resolve("release"), release + "\n");
    }
    return home;
  }

  private static void script(Path file, String text) throws IOException {
    Files.writeString(file, text);
    assertThat(file.toFile().setExecutable(true)).isTrue();
  }

  private static String major(Path home) throws Exception {
    return run("psflow_java_major '" + home.resolve("bin/java") + "'").strip();
  }

  private static String run(String commands) throws Exception {
    Process p = new ProcessBuilder("bash", "-c", ". '" + SCRIPT + "'; " + commands).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return out;
  }
}
