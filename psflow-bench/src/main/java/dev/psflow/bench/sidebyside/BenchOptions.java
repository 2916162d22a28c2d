package dev.psflow.bench.sidebyside;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code bin/bench}'s options. Each is {@code --name=value}; a mistake fails with one line naming
 * the option and the value.
 */
record BenchOptions(int trainSteps, int runs, List<Workload> workloads, Path tensorflow, Path dataDir,
    boolean scaling, Double timeoutSeconds, List<String> psflowTaskFlags, boolean insecure, boolean help) {
  static final String USAGE = """
      Usage: bin/bench [--train_steps=2000] [--runs=3] [--workloads=local,async,sync,main] [--no-scaling]
                       [--tensorflow=DIR] [--data_dir=datasets/mnist] [--timeout_s=S] [--psflow_task_flags='...']
                       [--insecure]
      Trains the replica example's model (batch 100, Adam 0.01) with psflow and, given --tensorflow=DIR (the
      TensorFlow reference, e.g. ../shared/reference/tensorflow-mnist-replica), with TensorFlow, alternating
      psflow, TF, psflow, TF... --runs times per workload, then prints one table (medians, min-max, ratios)
      and the scaling section (async at --hidden_units 100, 400, 1600, and with 2 ps tasks; one run each).
        --train_steps=N         global steps per job (default 2000)
        --runs=N                alternations per workload (default 3)
        --workloads=LIST        any of local, async, sync, main (default all four); main is the README's main
                                job, timed whole: psflow's local-cluster command beside TensorFlow's three tasks
        --no-scaling            skip the scaling section
        --tensorflow=DIR        the TensorFlow reference's directory (bin/bench builds it when needed)
        --data_dir=DIR          MNIST's four *-ubyte.gz files (default: the project's datasets/mnist)
        --timeout_s=S           wall-clock limit of one run (default: 120 s + 0.25 s per step per 100 hidden units)
        --psflow_task_flags=F   extra flags for every psflow ps and worker task, space-separated
        --insecure              psflow's tasks in plaintext; by default they speak mutual TLS with certificates
                                made for the run (psflow certs), as local-cluster's do
      Logs of every process go to psflow-bench/target/bench-logs/<time>/.
      """;

  static BenchOptions parse(String[] args, Path defaultDataDir) {
    int trainSteps = 2000;
    int runs = 3;
    List<Workload> workloads = List.of(Workload.LOCAL, Workload.ASYNC, Workload.SYNC, Workload.MAIN);
    Path tensorflow = null;
    Path dataDir = defaultDataDir;
    boolean scaling = true;
    Double timeout = null;
    List<String> taskFlags = List.of();
    boolean insecure = false;
    boolean help = false;
    for (String a : args) {
      int eq = a.indexOf('=');
      String name = eq < 0 ? a : a.substring(0, eq);
      String value = eq < 0 ? null : a.substring(eq + 1);
      switch (name) {
        case "--train_steps" -> trainSteps = positive(name, value);
        case "--runs" -> runs = positive(name, value);
        case "--workloads" -> {
          List<Workload> ws = new ArrayList<>();
          for (String w : required(name, value).split(",")) {
            Workload wl = Workload.named(w.trim());
            if (!ws.contains(wl)) {
              ws.add(wl);
            }
          }
          workloads = List.copyOf(ws);
        }
        case "--tensorflow" -> tensorflow = Path.of(required(name, value));
        case "--data_dir" -> dataDir = Path.of(required(name, value));
        case "--no-scaling", "--no_scaling" -> scaling = false;
        case "--timeout_s" -> timeout = (double) positive(name, value);
        case "--psflow_task_flags" -> taskFlags = Arrays.stream(required(name, value).trim().split("\\s+"))
            .filter(s -> !s.isEmpty()).toList();
        case "--insecure" -> insecure = true;
        case "--help", "-h" -> help = true;
        default -> throw new IllegalArgumentException("unknown option " + a + " (bin/bench --help lists them)");
      }
    }
    return new BenchOptions(trainSteps, runs, workloads, tensorflow, dataDir, scaling, timeout, taskFlags, insecure,
        help);
  }

  /** The wall-clock limit of one run of {@code w}: generous, since the machines are shared and loaded. */
  double timeoutFor(Workload w) {
    return timeoutSeconds != null ? timeoutSeconds
        : 120 + 0.25 * trainSteps * Math.max(1.0, w.hiddenUnits() / 100.0);
  }

  private static String required(String name, String value) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException(name + " needs a value: " + name + "=...");
    }
    return value;
  }

  private static int positive(String name, String value) {
    try {
      int n = Integer.parseInt(required(name, value));
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(name + " must be a positive whole number, got '" + value + "'");
  }
}
