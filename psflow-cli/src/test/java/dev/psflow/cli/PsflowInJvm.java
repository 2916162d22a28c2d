package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs the psflow command line in this JVM (no process), capturing what it prints. */
final class PsflowInJvm {
  /** The exit code and what the command printed on standard output and standard error. */
  record Result(int code, String out, String err) {
    List<String> outLines() {
      return out.lines().toList();
    }
  }

  private PsflowInJvm() {}

  /**
   * Runs {@code psflow args...}; what it printed is also echoed to this JVM's own streams
   * afterwards, so that it stays in the test report.
   */
  static Result run(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = Main.run(args);
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    Result r = new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    oldOut.print(r.out());
    oldErr.print(r.err());
    return r;
  }

  /** What {@code psflow args...} printed on standard output; fails, showing it, unless it exits 0. */
  static String stdout(String... args) {
    Result r = run(args);
    assertThat(r.code()).as(r.out()).isZero();
    return r.out();
  }
}
