package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Operating a running cluster, as a user does (docs/operating.md): a sync mnist-replica through
 * local-cluster; mid-run each task's /metrics is scraped (staleness, per-peer bytes; promtool's check
 * where it is installed), {@code psflow status} prints the table, and a SIGSTOPped worker is named
 * by the chief's stall line within --stall_report_secs.
 */
class OperatingIT {
  private static final Pattern HOSTS = Pattern.compile("mnist-replica on ps (\\S+), workers (\\S+), mutual TLS with "
      + "the certificates of (\\S+) \\(made for this run\\)");
  private static final Pattern METRICS = Pattern.compile("(ps\\d+|worker\\d+) (http://\\S+/metrics)");

  @Test
  void metricsStatusAndTheStallLineOfARunningSyncCluster() throws Exception {
    try (PsflowProcess.Running cluster = PsflowProcess.start("local-cluster", "--ps=1", "--workers=2", "mnist-replica",
        "--sync_replicas", "--train_steps=1000000", "--num_gpus=0", "--hidden_units=16", "--stall_report_secs=3")) {
      long t0 = System.nanoTime();
      awaitOutput(cluster, "\\[worker1\\] .*training step 5 done", 120);
      System.out.printf("OperatingIT: step 5 after %.1f s%n", (System.nanoTime() - t0) / 1e9);
      String out = cluster.output();
      Matcher hosts = HOSTS.matcher(out);
      assertThat(hosts.find()).as(out).isTrue();
      Map<String, String> metrics = new LinkedHashMap<>();
      Matcher m = METRICS.matcher(out.substring(out.indexOf("metrics: ")));
      while (m.find() && metrics.size() < 3) {
        metrics.put(m.group(1), m.group(2));
      }
      assertThat(metrics).containsOnlyKeys("ps0", "worker0", "worker1");

      Map<String, String> scrapes = new LinkedHashMap<>();
      for (Map.Entry<String, String> e : metrics.entrySet()) {
        scrapes.put(e.getKey(), scrape(e.getValue()));
      }
      String ps = scrapes.get("ps0");
      assertThat(value(ps, "psflow_gradient_staleness_count{at=\"accumulator\"}")).as(ps).isPositive();
      assertThat(ps).contains("psflow_gradient_staleness_bucket{at=\"accumulator\",le=\"0.0\"}");
      for (String w : List.of("/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1")) {
        assertThat(value(ps, "psflow_rpc_received_bytes_total{method=\"RunGraph\",peer=\"" + w + "\",side=\"server\"}"))
            .as("RunGraph bytes from " + w + " in\n" + ps).isPositive();
      }
      assertThat(value(ps, "psflow_sync_gradients_accumulated_total")).isPositive();
      assertThat(ps).contains("psflow_sync_queue_tokens{queue=").contains("jvm_memory_used_bytes");
      for (String w : List.of("worker0", "worker1")) {
        assertThat(value(scrapes.get(w), "psflow_rpc_sent_bytes_total{method=\"RunGraph\","
            + "peer=\"/job:ps/replica:0/task:0\",side=\"client\"}")).as(w + "'s RunGraph bytes to the ps").isPositive();
        assertThat(value(scrapes.get(w), "psflow_steps_total{role=\"worker\"}")).isPositive();
      }

      PsflowProcess.Result status = PsflowProcess.run(60, "status", "--ps_hosts=" + hosts.group(1),
          "--worker_hosts=" + hosts.group(2), "--tls_dir=" + hosts.group(3));
      assertThat(status.exitCode()).as(status.output()).isZero();
      assertThat(status.output()).containsPattern("/job:ps/replica:0/task:0 +\\S+ +up +[0-9a-f]{16} +\\d+ +\\d+ +\\S+=\\d+")
          .containsPattern("/job:worker/replica:0/task:1 +\\S+ +up ")
          .containsPattern("/job:worker/replica:0/task:0 +\\d+ +\\d+\\.\\d s ago")
          .containsPattern("/job:worker/replica:0/task:1 +\\d+ +\\d+\\.\\d s ago");

      System.out.printf("OperatingIT: status printed after %.1f s:%n%s%n", (System.nanoTime() - t0) / 1e9, status.output());
      ProcessHandle worker1 = cluster.process().descendants()
          .filter(p -> p.info().arguments().map(a -> List.of(a).contains("--job_name=worker")
              && List.of(a).contains("--task_index=1")).orElse(false))
          .findFirst().orElseThrow(() -> new AssertionError("no worker1 process under local-cluster"));
      int before = cluster.output().length();
      signal("STOP", worker1);
      try {
        long stopped = System.nanoTime();
        String line = awaitOutput(cluster, before, "\\[worker0\\] Worker 0: sync step \\d+ has waited .*waiting for: "
            + ".*/job:worker/replica:0/task:1 \\(last heard", 20);
        double seconds = (System.nanoTime() - stopped) / 1e9;
        System.out.printf("OperatingIT: stall line after %.1f s: %s%n", (System.nanoTime() - t0) / 1e9, line);
        assertThat(line).contains("contributed: /job:worker/replica:0/task:0");
        assertThat(seconds).as("the stall line came " + seconds + " s after SIGSTOP: " + line).isLessThan(3 + 5);
      } finally {
        signal("CONT", worker1);
      }
      for (Map.Entry<String, String> e : scrapes.entrySet()) {
        promtoolCheck(e.getKey() + "'s /metrics", e.getValue());
      }
    }
  }

  private static void signal(String signal, ProcessHandle p) throws IOException, InterruptedException {
    assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor()).isZero();
  }

  private static String awaitOutput(PsflowProcess.Running p, String regex, long seconds) throws Exception {
    return awaitOutput(p, 0, regex, seconds);
  }

  /** The first line after character {@code from} of the output that matches {@code regex}, waiting up to {@code seconds}. */
  private static String awaitOutput(PsflowProcess.Running p, int from, String regex, long seconds) throws Exception {
    Pattern pattern = Pattern.compile("(?m)^" + regex + ".*$");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      String out = p.output();
      Matcher m = pattern.matcher(out.substring(Math.min(from, out.length())));
      if (m.find()) {
        return m.group();
      }
      if (!p.process().isAlive()) {
        break;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no line matching " + regex + " in " + seconds + " s; output:\n" + p.output());
  }

  private static String scrape(String url) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(url).isEqualTo(200);
      return r.body();
    }
  }

  private static double value(String scrape, String series) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return -1;
  }

  /** {@code promtool check metrics} on a scrape; skipped, saying why, where promtool is not installed. */
  private static void promtoolCheck(String what, String scrape) throws IOException, InterruptedException {
    boolean onPath = false;
    for (String dir : String.valueOf(System.getenv("PATH")).split(java.io.File.pathSeparator)) {
      onPath |= Files.isExecutable(Path.of(dir, "promtool"));
    }
    assumeTrue(onPath, "promtool is not on the PATH (Debian: apt-get install prometheus): the format check of "
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
