package dev.psflow.cli;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.distributed.Explanation;
import dev.psflow.examples.EmbeddingReplica;
import dev.psflow.examples.EmbeddingReplicaRun;
import dev.psflow.tensor.Shape;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code psflow embedding-replica}: a 250M-parameter embedding partitioned over the ps tasks, trained by replicas. */
@Command(name = "embedding-replica", mixinStandardHelpOptions = true,
    description = {"Click prediction over a big embedding table (7,812,500 x 32 floats by default) partitioned "
        + "automatically over the ps tasks: Zipf-distributed hashed ids, mean-pooled, a small dense head, Adagrad "
        + "with sparse updates; asynchronous or --sync_replicas. Reports examples/sec, rows touched/sec and bytes "
        + "per step against the rows touched.",
        "Example: psflow local-cluster --ps=4 --workers=2 embedding-replica --train_steps=200"})
public final class EmbeddingReplicaCommand implements Callable<Integer>, StepToExplain {
  @Option(names = "--job_name", description = "job name: worker or ps")
  String jobName;

  @Option(names = "--task_index", description = "Worker task index, should be >= 0. task_index=0 is the master "
      + "worker task that performs the variable initialization")
  Integer taskIndex;

  @Option(names = "--ps_hosts", defaultValue = "localhost:2222,localhost:2223,localhost:2224,localhost:2225",
      description = "Comma-separated list of hostname:port pairs")
  String psHosts;

  @Option(names = "--worker_hosts", defaultValue = "localhost:2226,localhost:2227",
      description = "Comma-separated list of hostname:port pairs")
  String workerHosts;

  @Option(names = "--vocab_size", defaultValue = "7812500", description = "Rows of the embedding table (default: ${DEFAULT-VALUE})")
  long vocabSize;

  @Option(names = "--embedding_dim", defaultValue = "32", description = "Floats per row (default: ${DEFAULT-VALUE})")
  int embeddingDim;

  @Option(names = "--ids_per_example", defaultValue = "16", description = "Categorical ids per example (default: ${DEFAULT-VALUE})")
  int idsPerExample;

  @Option(names = "--hidden_units", defaultValue = "32", description = "Units of the dense head's hidden layer (default: ${DEFAULT-VALUE})")
  int hiddenUnits;

  @Option(names = "--train_steps", defaultValue = "200", description = "Number of (global) training steps to perform (default: ${DEFAULT-VALUE})")
  int trainSteps;

  @Option(names = "--warmup_steps", defaultValue = "10",
      description = "Each worker's first steps, left out of the rates and bytes per step (default: ${DEFAULT-VALUE})")
  int warmupSteps;

  @Option(names = "--batch_size", defaultValue = "512", description = "Training batch size (default: ${DEFAULT-VALUE})")
  int batchSize;

  @Option(names = "--learning_rate", defaultValue = "0.1", description = "Adagrad learning rate (default: ${DEFAULT-VALUE})")
  double learningRate;

  @Option(names = "--zipf_exponent", defaultValue = "1.05",
      description = "Skew of the ids: rank r drawn with probability ~ 1/(r+1)^s (default: ${DEFAULT-VALUE})")
  double zipfExponent;

  @Option(names = "--sync_replicas", arity = "0..1", defaultValue = "false", fallbackValue = "true",
      description = "Aggregate the workers' gradients before each update (SyncReplicasOptimizer)")
  boolean syncReplicas;

  @Option(names = "--replicas_to_aggregate", description = "Replicas to aggregate per update (sync only; default: num_workers)")
  Integer replicasToAggregate;

  @Option(names = "--ps_strategy", defaultValue = "greedy",
      description = "How variables are spread over the ps tasks: greedy (by bytes) or round_robin (default: ${DEFAULT-VALUE})")
  String psStrategy;

  @Option(names = "--partition_threshold_mb", defaultValue = "64",
      description = "Variables larger than this many MiB are partitioned over all ps tasks (default: ${DEFAULT-VALUE})")
  double partitionThresholdMb;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the initial table and of the data (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--log_dir", description = "Directory for the chief's checkpoints; a chief restarted with it restores "
      + "the latest (default: none, no checkpoints)")
  Path logDir;

  @Option(names = "--save_checkpoint_steps", description = "Global steps between the chief's checkpoints (with --log_dir)")
  Integer saveCheckpointSteps;

  @Option(names = "--time_checkpoint", arity = "0..1", defaultValue = "false", fallbackValue = "true",
      description = "After training, the chief saves the whole model and restores it, and prints both times")
  boolean timeCheckpoint;

  @Mixin SecurityFlags security = new SecurityFlags();

  @Mixin ServerLimitOptions limits = new ServerLimitOptions();

  @Override
  public Integer call() throws InterruptedException {
    EmbeddingReplicaRun.run(flags(), limits.serverOptions(), System.out);
    return 0;
  }

  private EmbeddingReplica.Flags flags() {
    if (!(partitionThresholdMb > 0)) {
      throw new UserErrors.UsageException("--partition_threshold_mb must be positive, got " + partitionThresholdMb);
    }
    return new EmbeddingReplica.Flags(jobName, taskIndex, psHosts, workerHosts, vocabSize, embeddingDim, idsPerExample,
        hiddenUnits, batchSize, trainSteps, warmupSteps, learningRate, zipfExponent, syncReplicas, replicasToAggregate,
        psStrategy, (long) (partitionThresholdMb * (1 << 20)), seed, logDir, saveCheckpointSteps, timeCheckpoint,
        security.security());
  }

  /** The step a worker runs ({@code --task_index}, default 0): feed a batch of sparse ids and labels, train. */
  @Override
  public Explanation.Step describeStep() {
    if (taskIndex == null) {
      taskIndex = 0;
    }
    ClusterSpec cluster = ClusterSpec.fromFlags(psHosts, workerHosts);
    EmbeddingReplica.ReplicaGraph g = EmbeddingReplica.buildGraph(flags(), cluster);
    int n = batchSize * idsPerExample;
    return new Explanation.Step("embedding-replica", g.graph(), cluster, ClusterSpec.taskName("worker", taskIndex),
        g.config(), List.of(g.indices(), g.ids(), g.denseShape(), g.labels()),
        List.of(Shape.of(n, 2), Shape.of(n), Shape.of(2), Shape.of(batchSize, 1)), List.of(g.loss()), List.of(g.train()));
  }
}
