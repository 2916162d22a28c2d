package dev.psflow.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * End-to-end distributed speed: runs {@code psflow local-cluster --ps=P --workers=W mnist-replica}
 * as real processes on loopback and reports global steps/sec (over the training time the workers
 * report, the first {@code --warmup} global steps excluded) and the bytes moved on the wire per
 * global step (every worker's gRPC message bytes, both ways, during training), against the ideal
 * payload (parameters pulled + gradients pushed: 636,080 bytes for this model). The tasks speak mutual
 * TLS, as local-cluster's do by default; {@code --insecure} runs them in plaintext.
 *
 * <p>Run: {@code java -cp psflow-bench/target/psflow-bench.jar dev.psflow.bench.ReplicaBench
 * [--ps=1] [--workers=2] [--train_steps=3000] [--warmup=500] [--insecure] [--sync_replicas]}
 */
public final class ReplicaBench {
  private static final Pattern STEP = Pattern.compile(
      "^\\[worker(\\d+)\\] (\\d+\\.\\d+): Worker \\d+: training step \\d+ done \\(global step: (\\d+)\\)");
  private static final Pattern WIRE = Pattern.compile(
      "wire during training: sent (\\d+) bytes, received (\\d+) bytes in \\d+ messages, (\\d+) local steps");
  private static final long IDEAL = 636_080;

  private ReplicaBench() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    int ps = 1;
    int workers = 2;
    int steps = 3000;
    int warmup = 500;
    List<String> extra = new ArrayList<>();
    boolean insecure = false;
    for (String a : args) {
      if (a.equals("--insecure")) {
        insecure = true;
      } else if (a.startsWith("--ps=")) {
        ps = Integer.parseInt(a.substring(5));
      } else if (a.startsWith("--workers=")) {
        workers = Integer.parseInt(a.substring(10));
      } else if (a.startsWith("--train_steps=")) {
        steps = Integer.parseInt(a.substring(14));
      } else if (a.startsWith("--warmup=")) {
        warmup = Integer.parseInt(a.substring(9));
      } else {
        extra.add(a);
      }
    }
    Path root = Path.of(System.getProperty("psflow.home", "."));
    List<String> cmd = new ArrayList<>(List.of(root.resolve("bin/psflow").toString(), "local-cluster", "--ps=" + ps,
        "--workers=" + workers));
    if (insecure) {
      cmd.add("--insecure");
    }
    cmd.addAll(List.of("mnist-replica", "--train_steps=" + steps));
    cmd.addAll(extra);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    double tWarm = Double.NaN;
    double tEnd = 0;
    long gWarm = 0;
    long gEnd = 0;
    long bytes = 0;
    long localSteps = 0;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        Matcher m = STEP.matcher(line);
        if (m.find()) {
          double t = Double.parseDouble(m.group(2));
          long g = Long.parseLong(m.group(3));
          if (Double.isNaN(tWarm) && g >= warmup) {
            tWarm = t;
            gWarm = g;
          }
          if (g >= gEnd) {
            gEnd = g;
            tEnd = t;
          }
          continue;
        }
        Matcher w = WIRE.matcher(line);
        if (w.find()) {
          bytes += Long.parseLong(w.group(1)) + Long.parseLong(w.group(2));
          localSteps += Long.parseLong(w.group(3));
        }
        if (line.contains("accuracy") || line.contains("elapsed") || line.contains("local-cluster:")) {
          System.out.println(line);
        }
      }
    }
    int rc = p.waitFor();
    double rate = (gEnd - gWarm) / (tEnd - tWarm);
    System.out.printf(Locale.ROOT, "%d ps + %d workers%s%s: %.1f global steps/sec (global steps %d..%d), "
        + "%,d bytes per step on the wire (ideal payload %,d: %+.2f%%), exit %d%n", ps, workers,
        insecure ? " --insecure" : " TLS", extra.isEmpty() ? "" : " " + String.join(" ", extra), rate, gWarm, gEnd, bytes / Math.max(1, localSteps),
        IDEAL, 100.0 * (bytes / (double) Math.max(1, localSteps) - IDEAL) / IDEAL, rc);
    if (Files.exists(root)) {
      System.exit(rc);
    }
  }
}
