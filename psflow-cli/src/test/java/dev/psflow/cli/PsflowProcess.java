package dev.psflow.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the packaged {@code psflow} command as a separate process, as a user would, and captures its output. */
final class PsflowProcess {
  record Result(int exitCode, String output) {
    List<String> lines() {
      return output.lines().toList();
    }
  }

  private PsflowProcess() {}

  static Result run(long timeoutSeconds, String... args) throws IOException, InterruptedException {
    try (Running p = start(args)) {
      return p.await(timeoutSeconds);
    }
  }

  /** Starts {@code psflow args...} in the background; close the result to kill it (and its children). */
  static Running start(String... args) throws IOException {
    return start(Map.of(), List.of(), args);
  }

  /** As {@link #start(String...)}, with these environment variables and extra JVM flags (before -jar). */
  static Running start(Map<String, String> env, List<String> jvmFlags, String... args) throws IOException {
    List<String> cmd = command(args);
    cmd.addAll(1, jvmFlags);
    Path log = Files.createTempFile("psflow-it", ".log");
    ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
        .directory(Path.of(System.getProperty("psflow.home", "..")).toFile());
    b.environment().putAll(env);
    Process p = b.start();
    return new Running(String.join(" ", args), p, log);
  }

  /** The java command line that runs the packaged {@code psflow} with {@code args}, as bin/psflow does. */
  static List<String> command(String... args) {
    Path jar = Path.of(System.getProperty("psflow.jar", "target/psflow.jar"));
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is not built: system tests run after package (mvn verify)");
    }
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Dpsflow.home=" + System.getProperty("psflow.home", ".."),
        "-jar", jar.toString()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** A psflow process started in the background, its output going to a temporary file. */
  record Running(String args, Process process, Path log) implements AutoCloseable {
    /** Waits for it to exit; fails with its output if it does not within {@code timeoutSeconds}. */
    Result await(long timeoutSeconds) throws IOException, InterruptedException {
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        close();
        throw new AssertionError("psflow " + args + " did not finish in " + timeoutSeconds + " s; output:\n" + output());
      }
      return new Result(process.exitValue(), output());
    }

    String output() throws IOException {
      return Files.readString(log, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Files.deleteIfExists(log);
    }
  }

  /** The float after {@code prefix} on the last line that starts with it (after any [task] prefix). */
  static double valueAfter(Result r, String prefix) {
    double v = Double.NaN;
    for (String line : r.lines()) {
      String l = line.replaceFirst("^\\[[a-z]+\\d+\\] ", "");
      if (l.startsWith(prefix)) {
        v = Double.parseDouble(l.substring(prefix.length()).trim());
      }
    }
    if (Double.isNaN(v)) {
      throw new AssertionError("no line starting with '" + prefix + "' in:\n" + r.output());
    }
    return v;
  }
}
