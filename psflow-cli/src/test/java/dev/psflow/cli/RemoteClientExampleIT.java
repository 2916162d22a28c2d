package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.psflow.cluster.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * examples/remote-client as its user runs it: certificates from {@code psflow certs}, a cluster of
 * two {@code psflow server} processes (one ps, one worker, mutual TLS) on free ports, then the example's jar (built by the invoker earlier in this
 * {@code mvn verify}, against this build's artifacts) in a JVM of its own started without
 * {@code --add-modules}: it connects with {@code grpc://} and the client certificate, trains, prints what it learned, exits 0.
 */
class RemoteClientExampleIT {
  private static final Pattern LEARNED = Pattern.compile(
      "learned w = \\[(-?[\\d.]+), (-?[\\d.]+)\\], b = (-?[\\d.]+) after 500 steps");

  private final List<Process> servers = new ArrayList<>();
  private final List<Path> logs = new ArrayList<>();
  private Path certs;

  @Test
  void theRemoteClientTrainsOnAClusterOfPsflowServers() throws Exception {
    Path jar = Path.of(System.getProperty("psflow.examples", "target/examples"), "remote-client", "target",
        "remote-client.jar");
    assertThat(jar).as("the example's jar, built by the invoker during mvn verify").exists();
    List<Integer> ports = FreePorts.pick(2);
    String[] cluster = {"--ps_hosts=127.0.0.1:" + ports.get(0), "--worker_hosts=127.0.0.1:" + ports.get(1)};
    certs = Files.createTempDirectory("psflow-remote-client-certs");
    Files.delete(certs);
    assertThat(PsflowProcess.run(60, "certs", cluster[0], cluster[1], "--out=" + certs).exitCode()).isZero();
    Path psLog = startServer(cluster, "ps");
    Path workerLog = startServer(cluster, "worker");
    awaitLine(psLog, "Started server /job:ps");
    awaitLine(workerLog, "Started server /job:worker");

    String target = "grpc://127.0.0.1:" + ports.get(1);
    Path clientLog = log();
    long start = System.nanoTime();
    Process client = new ProcessBuilder(javaExecutable(), "-jar", jar.toString(), target, certs.toString())
        .redirectErrorStream(true).redirectOutput(clientLog.toFile()).start();
    boolean finished = client.waitFor(120, TimeUnit.SECONDS);
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!finished) {
      client.destroyForcibly();
    }
    String out = Files.readString(clientLog, StandardCharsets.UTF_8);
    System.out.printf("RemoteClientExampleIT: the client ran %.1f s; its output:%n%s", seconds, out);

    assertThat(finished).as("the client finished within 120 s:%n%s", out).isTrue();
    assertThat(client.exitValue()).as(out).isZero();
    assertThat(out).contains("Training on " + target).doesNotContain("NoClassDefFoundError");
    Matcher m = LEARNED.matcher(out);
    assertThat(m.find()).as(out).isTrue();
    assertThat(Double.parseDouble(m.group(1))).isCloseTo(2, within(0.05));
    assertThat(Double.parseDouble(m.group(2))).isCloseTo(-3, within(0.05));
    assertThat(Double.parseDouble(m.group(3))).isCloseTo(1, within(0.05));
  }

  @AfterEach
  void stopServers() throws Exception {
    for (Process p : servers) {
      p.destroy(); // SIGTERM: the server's shutdown hook stops it
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    for (Path log : logs) {
      Files.deleteIfExists(log);
    }
    if (certs != null) {
      try (var files = Files.list(certs)) {
        for (Path f : files.toList()) {
          Files.delete(f);
        }
      }
      Files.delete(certs);
    }
  }

  private Path startServer(String[] cluster, String job) throws IOException {
    Path log = log();
    servers.add(PsflowProcess.builder(List.of(), "server", cluster[0], cluster[1], "--job_name=" + job,
        "--task_index=0", "--tls_dir=" + certs).redirectErrorStream(true).redirectOutput(log.toFile()).start());
    return log;
  }

  private Path log() throws IOException {
    Path log = Files.createTempFile("psflow-remote-client-it", ".log");
    logs.add(log);
    return log;
  }

  /** Waits up to 60 s for a line of {@code log} containing {@code text}. */
  private static void awaitLine(Path log, String text) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(log, StandardCharsets.UTF_8).contains(text)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no line with '" + text + "' in 60 s:\n" + Files.readString(log));
      }
      Thread.sleep(100);
    }
  }

  private static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
