package dev.psflow.bench.sidebyside;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One of the two systems measured: how to start its local training and each of its ps and worker
 * tasks as a JVM of its own, and where its local steps/sec appears in what it prints. Both are
 * launched as {@code java ...} directly (no wrapper script), so that the measured process is the
 * JVM itself.
 */
sealed interface Contender permits Contender.Psflow, Contender.TensorFlow {
  /** What one job is told: the workload, the steps, the data, the cluster (null for local), and a fresh directory of its own. */
  record Job(Workload workload, int trainSteps, Path dataDir, String psHosts, String workerHosts, Path scratchDir) {}

  String name();

  /** The command that trains in one process. */
  List<String> localCommand(Job job);

  /** The command for {@code --job_name=job --task_index=index} of a distributed job. */
  List<String> taskCommand(Job job, String jobName, int index);

  /** Local training's steps/sec with the first 50 steps excluded, from what the process printed. */
  OptionalDouble localStepsPerSec(List<String> output);

  /**
   * The one command that runs the whole {@link Workload#MAIN} job as the system's README does, or
   * empty where the README starts the tasks by hand (they are then started as for {@code async}).
   */
  default Optional<List<String>> mainJobCommand(Job job) {
    return Optional.empty();
  }

  /** Why this system cannot run {@code w}, or null when it can. */
  default String unsupported(Workload w) {
    return null;
  }

  /** The example's flags, identical for both systems. */
  private static List<String> modelFlags(Job job) {
    return List.of("--hidden_units=" + job.workload().hiddenUnits(), "--train_steps=" + job.trainSteps(),
        "--batch_size=" + Workload.BATCH_SIZE, "--learning_rate=" + Workload.LEARNING_RATE,
        "--data_dir=" + job.dataDir());
  }

  private static List<String> taskFlags(Job job, String jobName, int index) {
    List<String> f = new ArrayList<>(List.of("--job_name=" + jobName, "--task_index=" + index,
        "--ps_hosts=" + job.psHosts(), "--worker_hosts=" + job.workerHosts()));
    f.addAll(modelFlags(job));
    return f;
  }

  /**
   * psflow, run as {@code bin/psflow} runs it: {@code java <bin/psflow's JVM flags> -jar psflow.jar},
   * a ps task with a ps task's flags ({@code psJvmFlags}: bin/jvm-flags.sh runs it at C1 only), a
   * worker with a replica worker's ({@code workerJvmFlags}: at C1 only too where psflow ships OpenBLAS).
   * Local training is {@code psflow mnist}; a task is {@code psflow mnist-replica}, started by hand
   * as TensorFlow's are (not through local-cluster). {@code extraTaskFlags} go to every ps and worker
   * (this is the one place to change psflow's task command line, e.g. for a transport flag).
   * The main job is the README's command, {@code script} ({@code bin/psflow}) {@code local-cluster
   * --ps=1 --workers=2 mnist-replica}: bin/psflow picks the launcher's JVM flags and local-cluster
   * its tasks', and makes the run's certificates, or runs them in plaintext when {@code insecure}
   * (local-cluster's own flag); {@code mainJobFlags} go after the program's name (the user's extra
   * task flags).
   */
  record Psflow(String java, List<String> jvmFlags, List<String> psJvmFlags, List<String> workerJvmFlags, Path jar,
      List<String> extraTaskFlags, Path script, List<String> mainJobFlags, boolean insecure)
      implements Contender {
    @Override
    public String name() {
      return "psflow";
    }

    @Override
    public List<String> localCommand(Job job) {
      List<String> c = jvm(jvmFlags);
      c.add("mnist");
      c.addAll(modelFlags(job));
      return c;
    }

    @Override
    public List<String> taskCommand(Job job, String jobName, int index) {
      List<String> c = jvm(jobName.equals("ps") ? psJvmFlags : workerJvmFlags);
      c.add("mnist-replica");
      c.addAll(taskFlags(job, jobName, index));
      if (job.workload().syncReplicas()) {
        c.add("--sync_replicas");
      }
      if (jobName.equals("worker")) {
        // The chief checkpoints as a user's run does, into a fresh directory as by default, but
        // kept with the run's logs rather than left in /tmp.
        c.add("--log_dir=" + job.scratchDir().resolve("worker" + index));
      }
      // The ps runs the chief's SaveV2 and writes only under its checkpoint root.
      c.add("--checkpoint_root=" + job.scratchDir());
      c.addAll(extraTaskFlags);
      return c;
    }

    @Override
    public OptionalDouble localStepsPerSec(List<String> output) {
      return LogLines.lastNumber(output, LogLines.PSFLOW_LOCAL_STEPS_PER_SEC);
    }

    @Override
    public Optional<List<String>> mainJobCommand(Job job) {
      List<String> c = new ArrayList<>(List.of(script.toString(), "local-cluster", "--ps=" + job.workload().psTasks(),
          "--workers=" + Workload.WORKERS));
      if (insecure) {
        c.add("--insecure");
      }
      c.add("mnist-replica");
      c.addAll(modelFlags(job));
      // Every task gets it: the chief's checkpoints and event files go there (by default, a fresh
      // directory under /tmp), and the ps's SaveV2 under it, as its checkpoint root.
      c.add("--log_dir=" + job.scratchDir());
      c.addAll(mainJobFlags);
      return Optional.of(c);
    }

    private List<String> jvm(List<String> flags) {
      List<String> c = new ArrayList<>();
      c.add(java);
      c.addAll(flags);
      c.add("-jar");
      c.add(jar.toString());
      return c;
    }
  }

  /**
   * The TensorFlow reference ({@code reference.MnistReplica} on TF Java), run as its README runs it:
   * {@code java -cp DIR/target/classes:DIR/target/lib/* reference.MnistReplica}.
   */
  record TensorFlow(String java, Path dir) implements Contender {
    /** Fails with one line saying how to build it when {@code dir} holds no built reference. */
    public TensorFlow {
      if (!dir.resolve("target/classes/reference/MnistReplica.class").toFile().isFile()
          || !dir.resolve("target/lib").toFile().isDirectory()) {
        throw new IllegalArgumentException("--tensorflow=" + dir + ": the reference is not built (no target/classes, "
            + "target/lib); build it with: ./mvnw -f " + dir.resolve("pom.xml") + " -q package -DskipTests");
      }
    }

    @Override
    public String name() {
      return "TensorFlow";
    }

    @Override
    public List<String> localCommand(Job job) {
      List<String> c = jvm();
      c.add("--job_name=local");
      c.addAll(modelFlags(job));
      return c;
    }

    @Override
    public List<String> taskCommand(Job job, String jobName, int index) {
      List<String> c = jvm();
      c.addAll(taskFlags(job, jobName, index));
      if (job.workload().syncReplicas()) {
        c.add("--sync_replicas=true");
      }
      return c;
    }

    @Override
    public OptionalDouble localStepsPerSec(List<String> output) {
      return LogLines.lastNumber(output, LogLines.TENSORFLOW_LOCAL_STEPS_PER_SEC);
    }

    @Override
    public String unsupported(Workload w) {
      return w.psTasks() > 1 ? "the reference runs one ps task only" : null;
    }

    private List<String> jvm() {
      String target = dir.resolve("target").toAbsolutePath().toString();
      return new ArrayList<>(List.of(java, "-cp", target + "/classes:" + target + "/lib/*", "reference.MnistReplica"));
    }
  }
}
