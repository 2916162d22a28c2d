package dev.psflow.cli;

import dev.psflow.distributed.Explanation;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.TfConfig;
import dev.psflow.examples.MnistModel;
import dev.psflow.examples.MnistReplica;
import dev.psflow.train.TracedSteps;
import dev.psflow.tensor.Shape;
import java.io.PrintStream;
import java.util.List;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code psflow mnist-replica}: TensorFlow's distributed MNIST replica example, with its flags. */
@Command(name = "mnist-replica", mixinStandardHelpOptions = true,
    description = "Distributed MNIST training and validation, with model replicas (TensorFlow's mnist_replica.py).")
public final class MnistReplicaCommand implements Callable<Integer>, StepToExplain, BackupWorkers {
  static final String DEFAULT_PS_HOSTS = "localhost:2222";
  static final String DEFAULT_WORKER_HOSTS = "localhost:2223,localhost:2224";

  @Option(names = "--job_name", description = "job name: worker or ps (default: TF_CONFIG's task type)")
  String jobName;

  @Option(names = "--task_index", description = "Worker task index, should be >= 0. task_index=0 is the master "
      + "worker task that performs the variable initialization (default: TF_CONFIG's task index)")
  Integer taskIndex;

  @Option(names = "--ps_hosts", description = "Comma-separated list of hostname:port pairs "
      + "(default: TF_CONFIG's ps job when TF_CONFIG is set, else " + DEFAULT_PS_HOSTS + ")")
  String psHosts;

  @Option(names = "--worker_hosts", description = "Comma-separated list of hostname:port pairs "
      + "(default: TF_CONFIG's chief and worker jobs, the chief first, when TF_CONFIG is set, else "
      + DEFAULT_WORKER_HOSTS + ")")
  String workerHosts;

  @Option(names = "--hidden_units", defaultValue = "100", description = "Number of units in the hidden layer of the NN")
  int hiddenUnits;

  @Option(names = "--train_steps", defaultValue = "200", description = "Number of (global) training steps to perform")
  int trainSteps;

  @Option(names = "--batch_size", defaultValue = "100", description = "Training batch size")
  int batchSize;

  @Option(names = "--learning_rate", defaultValue = "0.01", description = "Learning rate")
  double learningRate;

  @Option(names = "--data_dir", description = "Directory for storing mnist data (default: datasets/mnist)")
  Path dataDir;

  @Option(names = "--download_only", arity = "0..1", defaultValue = "false", fallbackValue = "true",
      description = "Only perform downloading of data; Do not proceed to session preparation, model definition or training")
  boolean downloadOnly;

  @Option(names = "--existing_servers", arity = "0..1", defaultValue = "false", fallbackValue = "true",
      description = "Whether servers already exists. If True, will use the worker hosts via their GRPC URLs "
          + "(one client process per worker host). Otherwise, will create an in-process server.")
  boolean existingServers;

  @Option(names = "--num_gpus", defaultValue = "1",
      description = "Total number of gpus for each machine. If you don't use GPU, please set it to '0'")
  int numGpus;

  @Option(names = "--sync_replicas", arity = "0..1", defaultValue = "false", fallbackValue = "true",
      description = "Use the sync_replicas (synchronized replicas) mode, wherein the parameter updates from workers "
          + "are aggregated before applied to avoid stale gradients")
  boolean syncReplicas;

  @Option(names = "--replicas_to_aggregate", description = "Number of replicas to aggregate before parameter update "
      + "is applied (For sync_replicas mode only; default: num_workers)")
  Integer replicasToAggregate;

  @Option(names = "--log_dir", description = "Directory for the chief's TensorBoard event files and checkpoints; "
      + "a chief restarted with the same directory restores the latest checkpoint (default: a fresh temporary directory)")
  Path logDir;

  @Option(names = "--save_checkpoint_secs", defaultValue = "10",
      description = "Seconds between the chief's checkpoints (default: ${DEFAULT-VALUE})")
  double saveCheckpointSecs;

  @Option(names = "--save_checkpoint_steps", description = "Global steps between the chief's checkpoints "
      + "(replaces --save_checkpoint_secs)")
  Integer saveCheckpointSteps;

  @Option(names = "--trace_steps", description = "Trace the training runs of global steps A..B (e.g. 100:105): "
      + "every op's kernel time, each RecvTensor's wait and transfer, each RPC, on every task")
  String traceSteps;

  @Option(names = "--trace_file", description = "Where --trace_steps writes its Chrome trace (Trace Event JSON for "
      + "ui.perfetto.dev or chrome://tracing); the workers on one machine add their runs to this one file "
      + "(default: trace.json)")
  Path traceFile;

  @Option(names = "--stall_report_secs", defaultValue = "30", paramLabel = "SECONDS", description = "In sync mode, "
      + "when a step has waited this long the chief prints one line: the replicas whose gradients arrived, those it "
      + "still waits for, and when each was last heard from (default: ${DEFAULT-VALUE}).")
  double stallReportSecs;

  @Option(names = "--ps_strategy", defaultValue = "greedy", description = "How the variables are spread over the ps "
      + "tasks: greedy (each to the ps holding the fewest bytes) or round_robin (TensorFlow's default) "
      + "(default: ${DEFAULT-VALUE})")
  String psStrategy;

  @Mixin SecurityFlags security = new SecurityFlags();

  @Mixin ServerLimitOptions limits = new ServerLimitOptions();

  @Mixin MetricsFlags metrics = new MetricsFlags();

  @Override
  public Integer call() throws InterruptedException {
    clusterFromTfConfig(true);
    if (!(stallReportSecs > 0)) {
      throw new UserErrors.UsageException("--stall_report_secs must be positive, got " + stallReportSecs);
    }
    ServerOptions serverOptions = metrics.apply(limits.serverOptions());
    Duration stallReport = Duration.ofMillis(Math.round(stallReportSecs * 1000));
    if (traceFile != null && traceSteps == null) {
      throw new IllegalArgumentException("--trace_file needs --trace_steps=A:B (the global steps to trace)");
    }
    if (!"worker".equals(jobName)) {
      MnistReplica.run(flags(), serverOptions, stallReport, System.out);
      return 0;
    }
    TracedSteps trace = traceSteps == null ? null : TracedSteps.parse(traceSteps,
        traceFile != null ? traceFile : Path.of("trace.json"), ClusterSpec.taskName("worker", taskIndex == null ? 0 : taskIndex));
    // TensorFlow's lines stay as they are; on a terminal a live progress line sits below them.
    Progress progress = new Progress(System.out, trainSteps, "global step");
    PrintStream err = System.err;
    if (progress.isLive()) {
      System.setErr(progress.above(err)); // log lines (checkpoints, recovery) too go above the live line
    }
    try {
      MnistReplica.run(flags(), serverOptions, stallReport, trace, new MnistReplica.ProgressListener() {
        @Override
        public void step(long globalStep, double loss) {
          progress.step(globalStep, loss);
        }

        @Override
        public void finish() {
          progress.finish();
        }
      }, progress.above());
    } finally {
      System.setErr(err);
    }
    return 0;
  }

  private MnistReplica.Flags flags() {
    return new MnistReplica.Flags(jobName, taskIndex, psHosts, workerHosts, hiddenUnits, trainSteps, batchSize,
        learningRate, dataDir, downloadOnly, existingServers, numGpus, syncReplicas, replicasToAggregate,
        logDir, saveCheckpointSecs, saveCheckpointSteps, psStrategy, security.security());
  }

  /**
   * Without --ps_hosts and --worker_hosts, takes the cluster from TF_CONFIG when it is set (as
   * Kubeflow's training operator sets it), and the job and index too unless given; a {@code chief}
   * job there trains as worker 0, the chief, and the workers follow it ({@link TfConfigEnv}).
   * Otherwise the example's own defaults.
   */
  private void clusterFromTfConfig(boolean say) {
    TfConfig config = psHosts == null && workerHosts == null ? TfConfigEnv.read() : null;
    if (config != null) {
      for (String job : List.of("ps", "worker")) {
        if (!config.cluster().hasJob(job)) {
          throw new UserErrors.UsageException("TF_CONFIG's cluster has no '" + job + "' job (nor a chief): "
              + "mnist-replica needs ps and worker tasks; its jobs are " + config.cluster().jobs());
        }
      }
      psHosts = String.join(",", config.cluster().tasks("ps"));
      workerHosts = String.join(",", config.cluster().tasks("worker"));
      if (jobName == null && taskIndex == null && config.taskType() != null) {
        jobName = config.taskType();
        taskIndex = config.taskIndex();
        if (say) {
          System.out.println(TfConfigEnv.describe(config));
        }
      }
    }
    psHosts = psHosts != null ? psHosts : DEFAULT_PS_HOSTS;
    workerHosts = workerHosts != null ? workerHosts : DEFAULT_WORKER_HOSTS;
  }

  /**
   * Asynchronous training goes on with any workers left besides the chief; synchronous training
   * needs {@code --replicas_to_aggregate} of them each step, so it can lose the rest.
   */
  @Override
  public int maxLostWorkers(int workers) {
    return syncReplicas ? workers - (replicasToAggregate != null ? replicasToAggregate : workers) : workers - 1;
  }

  /** The step a worker runs ({@code --task_index}, default 0): feed a batch, run the train op, fetch global_step. */
  @Override
  public Explanation.Step describeStep() {
    clusterFromTfConfig(false);
    if (taskIndex == null) {
      taskIndex = 0;
    }
    ClusterSpec cluster = ClusterSpec.fromFlags(psHosts, workerHosts);
    MnistReplica.ReplicaGraph g = MnistReplica.buildGraph(flags(), cluster);
    MnistModel m = g.model();
    return new Explanation.Step("mnist-replica", g.graph(), cluster, ClusterSpec.taskName("worker", taskIndex), g.config(),
        List.of(m.x(), m.labels()), List.of(Shape.of(batchSize, 784), Shape.of(batchSize, 10)),
        List.of(m.globalStep().value()), List.of(g.trainStep()));
  }
}
