package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the psflow command line in this JVM (no process), for commands that only print. */
final class PsflowInJvm {
  private PsflowInJvm() {}

  /** What {@code psflow args...} printed on standard output; fails, showing it, unless it exits 0. */
  static String stdout(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = Main.run(args);
    } finally {
      System.setOut(old);
    }
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(text).isZero();
    return text;
  }
}
