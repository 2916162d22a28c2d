package dev.psflow.bench.sidebyside;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.distributed.certs.ClusterCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bin/bench}: psflow and the TensorFlow reference side by side. For each of {@code --runs}
 * alternations and each workload it runs psflow, then TensorFlow; then it prints one table
 * ({@link Report}) and the scaling section. Every process is a JVM started directly (psflow with
 * the flags bin/psflow uses, passed in by bin/bench), but for psflow's main job, which is the
 * README's {@code bin/psflow local-cluster} command; each is measured from outside: CPU from the
 * kernel's accounting of the reaped process, peak RSS from {@code VmHWM}, wall time from launch to exit.
 * Progress goes to stderr, the report to stdout.
 *
 * <p>Run it through {@code bin/bench} (it sets {@code psflow.home}, {@code psflow.bench.java},
 * {@code psflow.bench.jvm_flags}, {@code psflow.bench.ps_jvm_flags} (a ps task's) and {@code
 * psflow.bench.worker_jvm_flags} (a worker's), one flag a line); see {@link BenchOptions#USAGE}.
 */
public final class SideBySide {
  private static final List<Integer> SCALING_HIDDEN_UNITS = List.of(100, 400, 1600);

  private SideBySide() {}

  public static void main(String[] args) throws InterruptedException {
    Path home = Path.of(System.getProperty("psflow.home", ".")).toAbsolutePath().normalize();
    BenchOptions o;
    String java;
    List<String> jvmFlags;
    List<String> psJvmFlags;
    List<String> workerJvmFlags;
    try {
      o = BenchOptions.parse(args, home.resolve("datasets/mnist"));
      if (o.help()) {
        System.out.print(BenchOptions.USAGE);
        return;
      }
      if (!Files.isDirectory(o.dataDir())) {
        throw new IllegalArgumentException("--data_dir=" + o.dataDir() + " is not a directory (MNIST's *-ubyte.gz files)");
      }
      java = System.getProperty("psflow.bench.java", ProcessHandle.current().info().command().orElse("java"));
      jvmFlags = lines(System.getProperty("psflow.bench.jvm_flags", ""));
      String ps = System.getProperty("psflow.bench.ps_jvm_flags");
      psJvmFlags = ps != null ? lines(ps) : jvmFlags;
      String worker = System.getProperty("psflow.bench.worker_jvm_flags");
      workerJvmFlags = worker != null ? lines(worker) : jvmFlags;
    } catch (IllegalArgumentException e) {
      System.err.println("bench: " + e.getMessage());
      System.exit(2);
      return;
    }
    Path logDir = home.resolve("psflow-bench/target/bench-logs")
        .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    List<Contender> contenders = new ArrayList<>();
    try {
      Files.createDirectories(logDir);
      Path jar = home.resolve("psflow-cli/target/psflow.jar");
      List<String> taskFlags = new ArrayList<>(o.psflowTaskFlags());
      taskFlags.add(o.insecure() ? "--insecure" : "--tls_dir=" + certificates(logDir));
      // the main job's local-cluster makes its own certificates, as the README's run does
      contenders.add(new Contender.Psflow(java, jvmFlags, psJvmFlags, workerJvmFlags, jar, taskFlags,
          home.resolve("bin/psflow"), o.psflowTaskFlags(), o.insecure()));
      if (o.tensorflow() != null) {
        contenders.add(new Contender.TensorFlow(java, o.tensorflow().toAbsolutePath().normalize()));
      }
    } catch (IOException | UncheckedIOException e) {
      System.err.println("bench: cannot prepare " + logDir + ": " + e.getMessage());
      System.exit(1);
      return;
    }
    try {
      System.out.print(run(o, contenders, new JobRunner(logDir, clockTicksPerSecond()), logDir, home));
    } catch (JobRunner.RunFailed e) {
      System.err.println("bench: " + e.getMessage());
      System.err.println(e.tail);
      System.exit(1);
    }
    System.exit(0); // output reader threads of killed processes must not keep the harness alive
  }

  /** One flag a line, as bin/bench passes them. */
  private static List<String> lines(String flags) {
    return Arrays.stream(flags.split("\n")).filter(s -> !s.isBlank()).toList();
  }

  /**
   * The certificates psflow's tasks use, made once per benchmark as {@code local-cluster} makes its
   * own (psflow is measured as users run it, with mutual TLS). They name localhost and 127.0.0.1
   * whatever the port, so one set serves every job: up to 2 ps tasks and 2 workers.
   */
  private static Path certificates(Path logDir) {
    Path dir = logDir.resolve("certs");
    ClusterCertificates.write(ClusterSpec.fromFlags("localhost:1,localhost:2", "localhost:3,localhost:4"), dir,
        Duration.ofDays(1));
    return dir;
  }

  private static String run(BenchOptions o, List<Contender> contenders, JobRunner runner, Path logDir, Path home)
      throws JobRunner.RunFailed, InterruptedException {
    String loadBefore = loadAverage();
    List<String> systems = contenders.stream().map(Contender::name).toList();
    Map<Workload, Map<String, List<RunResult>>> results = new LinkedHashMap<>();
    for (Workload w : o.workloads()) {
      Map<String, List<RunResult>> bySystem = new LinkedHashMap<>();
      systems.forEach(s -> bySystem.put(s, new ArrayList<>()));
      results.put(w, bySystem);
    }
    for (int run = 1; run <= o.runs(); run++) {
      for (Workload w : o.workloads()) {
        for (Contender c : contenders) {
          String label = "run" + run + "-" + w.name() + "-" + c.name();
          RunResult r = runner.run(c, w, o.trainSteps(), o.dataDir(), o.timeoutFor(w), label);
          progress(String.format(Locale.ROOT, "run %d/%d", run, o.runs()), w, c, r);
          results.get(w).get(c.name()).add(r);
        }
      }
    }
    List<Report.ScalingRow> scaling = new ArrayList<>();
    if (o.scaling()) {
      List<Workload> configs = new ArrayList<>();
      SCALING_HIDDEN_UNITS.forEach(h -> configs.add(Workload.asyncWith(1, h)));
      configs.add(Workload.asyncWith(2, 100));
      for (Workload w : configs) {
        Map<String, RunResult> bySystem = new LinkedHashMap<>();
        Map<String, String> notRun = new LinkedHashMap<>();
        for (Contender c : contenders) {
          String why = c.unsupported(w);
          if (why != null) {
            notRun.put(c.name(), why);
            continue;
          }
          String label = "scaling-" + w.psTasks() + "ps-" + w.hiddenUnits() + "-" + c.name();
          RunResult r = runner.run(c, w, o.trainSteps(), o.dataDir(), o.timeoutFor(w), label);
          progress("scaling", w, c, r);
          bySystem.put(c.name(), r);
        }
        scaling.add(new Report.ScalingRow(w, bySystem, notRun));
      }
    }
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "%s — replica example's model (%d hidden units), batch %d, Adam %s, "
            + "%d steps; %s%n", String.join(" beside ", systems), Workload.ASYNC.hiddenUnits(), Workload.BATCH_SIZE,
        Workload.LEARNING_RATE, o.trainSteps(), o.runs() > 1
            ? "median (min–max) of " + o.runs() + " alternated runs" : "one run each"));
    out.append(String.format(Locale.ROOT, "%s, %s, %d cores, load average %s before, %s after; logs in %s%n",
        System.getProperty("java.vm.name") + " " + System.getProperty("java.version"), processor(),
        Runtime.getRuntime().availableProcessors(), loadBefore, loadAverage(), home.relativize(logDir)));
    out.append(o.insecure() ? "psflow's tasks in plaintext (--insecure).\n"
        : "psflow's tasks speak mutual TLS (certificates made for the run, as local-cluster does).\n");
    out.append("CPU: user + system of each JVM over its whole life; global steps/sec (distributed): train_steps / "
        + "the slower worker's 'Training elapsed time'.\n\n");
    List<Report.WorkloadRuns> runs = results.entrySet().stream()
        .map(e -> new Report.WorkloadRuns(e.getKey(), e.getValue())).toList();
    out.append(Report.table(systems, runs));
    if (!scaling.isEmpty()) {
      out.append(String.format(Locale.ROOT, "%nscaling: async, 2 workers, %d steps, one run each; CPU ms per "
          + "global step summed over all processes%n", o.trainSteps()));
      out.append(Report.scaling(systems, scaling));
    }
    return out.toString();
  }

  private static void progress(String what, Workload w, Contender c, RunResult r) {
    System.err.printf(Locale.ROOT, "bench: %s %s %s (%d hidden units): %.1f %ssteps/sec, %.2f CPU ms/step, %.1f s%n",
        what, w.title(), c.name(), w.hiddenUnits(), r.stepsPerSec(), w.distributed() ? "global " : "",
        r.totalCpuMsPerStep(), r.jobSeconds());
  }

  /** The kernel's clock ticks per second, in which /proc reports CPU time (100 almost everywhere). */
  private static double clockTicksPerSecond() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 ? Double.parseDouble(out) : 100;
    } catch (IOException | InterruptedException | NumberFormatException e) {
      return 100;
    }
  }

  /**
   * The processor's model and its widest vectors, from /proc/cpuinfo: psflow's kernels run on
   * 512-bit vectors with AVX-512 and on 256-bit ones with AVX2, so the ratios differ between the two.
   */
  static String processor() {
    try {
      List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
      String model = lines.stream().filter(l -> l.startsWith("model name")).findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("unknown processor");
      String flags = lines.stream().filter(l -> l.startsWith("flags")).findFirst().orElse("");
      String vectors = flags.contains(" avx512f") ? "AVX-512" : flags.contains(" avx2") ? "AVX2, no AVX-512" : "no AVX2";
      return model + " (" + vectors + ")";
    } catch (IOException | RuntimeException e) {
      return "processor unknown";
    }
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0];
    } catch (IOException e) {
      return "?";
    }
  }
}
