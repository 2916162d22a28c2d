package dev.psflow.distributed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Prometheus' own checker, {@code promtool check metrics}, when it is on the PATH (Debian: package prometheus). */
final class Promtool {
  private Promtool() {}

  static boolean onPath() {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, "promtool"))) {
        return true;
      }
    }
    return false;
  }

  /** Fails naming promtool's complaints unless it accepts {@code scrape}; skips, saying why, without promtool. */
  static void check(String what, String scrape) throws IOException, InterruptedException {
    assumeTrue(onPath(), "promtool is not on the PATH (Debian: apt-get install prometheus): the format check of "
        + what + " is skipped");
    Process p = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(scrape.getBytes(StandardCharsets.UTF_8));
    }
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("promtool check metrics on " + what + " said:\n" + said).isZero();
  }
}
