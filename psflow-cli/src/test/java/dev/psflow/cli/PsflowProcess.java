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

  /** As {@link #start(String...)}, with these environment variables and extra JVM flags. */
  static Running start(Map<String, String> env, List<String> jvmFlags, String... args) throws IOException {
    Path log = Files.createTempFile("psflow-it", ".log");
    ProcessBuilder b = builder(jvmFlags, args).redirectErrorStream(true).redirectOutput(log.toFile());
    b.environment().putAll(env);
    return new Running(String.join(" ", args), b.start(), log);
  }

  /**
   * {@code bin/psflow args...} as a user runs it, so that the tests' tasks get the JVM flags (and the
   * AOT cache, where bin/build made one) of bin/jvm-flags.sh: on the JDK running the tests, with
   * Netty's leak detection left on and {@code jvmFlags} after bin/psflow's own (through
   * PSFLOW_JAVA_OPTS, which bin/psflow splits on spaces: no flag may hold one).
   */
  static ProcessBuilder builder(List<String> jvmFlags, String... args) {
    Path home = Path.of(System.getProperty("psflow.home", ".."));
    Path jar = home.resolve("psflow-cli/target/psflow.jar");
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is not built: system tests run after package (mvn verify)");
    }
    List<String> cmd = new ArrayList<>(List.of("bash", home.resolve("bin/psflow").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder b = new ProcessBuilder(cmd).directory(home.toFile());
    List<String> opts = new ArrayList<>(List.of("-Dio.grpc.netty.shaded.io.netty.leakDetection.level=simple"));
    opts.addAll(jvmFlags);
    b.environment().put("JAVA_HOME", System.getProperty("java.home"));
    b.environment().put("PSFLOW_JAVA_OPTS", String.join(" ", opts));
    return b;
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
