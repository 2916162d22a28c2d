package dev.psflow.cli;

import dev.psflow.distributed.Explanation;
import dev.psflow.cluster.ClusterSpec;
import dev.psflow.examples.EmbeddingLookup;
import dev.psflow.tensor.Shape;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code psflow embedding-lookup}: a sharded embedding table trained over the ps tasks, with the bytes each step moves. */
@Command(name = "embedding-lookup", mixinStandardHelpOptions = true,
    description = {"Train an embedding table split over the ps tasks through sparse lookups (embedding_lookup) and "
        + "report the bytes each step moves on the wire against the rows it uses.",
        "Example: psflow local-cluster --ps=3 --workers=1 embedding-lookup --train_steps=300"})
public final class EmbeddingLookupCommand implements Callable<Integer>, StepToExplain {
  @Option(names = "--job_name", description = "job name: worker or ps")
  String jobName;

  @Option(names = "--task_index", description = "Task index, should be >= 0; worker 0 initializes the table")
  Integer taskIndex;

  @Option(names = "--ps_hosts", defaultValue = "localhost:2222,localhost:2223,localhost:2224",
      description = "Comma-separated list of hostname:port pairs")
  String psHosts;

  @Option(names = "--worker_hosts", defaultValue = "localhost:2225", description = "Comma-separated list of hostname:port pairs")
  String workerHosts;

  @Option(names = "--vocabulary_size", defaultValue = "50000", description = "Rows of the embedding table (default: ${DEFAULT-VALUE})")
  int vocabularySize;

  @Option(names = "--embedding_dim", defaultValue = "32", description = "Floats per row (default: ${DEFAULT-VALUE})")
  int embeddingDim;

  @Option(names = "--batch_size", defaultValue = "1024", description = "Distinct ids looked up per step (default: ${DEFAULT-VALUE})")
  int batchSize;

  @Option(names = "--train_steps", defaultValue = "300", description = "Steps each worker trains (default: ${DEFAULT-VALUE})")
  int trainSteps;

  @Option(names = "--warmup_steps", defaultValue = "10",
      description = "First steps left out of the bytes per step (graph registration) (default: ${DEFAULT-VALUE})")
  int warmupSteps;

  @Option(names = "--learning_rate", defaultValue = "0.5", description = "Gradient descent learning rate (default: ${DEFAULT-VALUE})")
  double learningRate;

  @Option(names = "--partition_strategy", defaultValue = "mod", description = "How ids map to shards: mod or div (default: ${DEFAULT-VALUE})")
  String partitionStrategy;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the initial table and of the ids (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--ps_strategy", defaultValue = "greedy",
      description = "How variables are spread over the ps tasks: greedy (by bytes) or round_robin (default: ${DEFAULT-VALUE})")
  String psStrategy;

  @Mixin SecurityFlags security = new SecurityFlags();

  @Mixin ServerLimitOptions limits = new ServerLimitOptions();

  @Mixin MetricsFlags metrics = new MetricsFlags();

  @Override
  public Integer call() throws InterruptedException {
    EmbeddingLookup.run(flags(), metrics.apply(limits.serverOptions()), System.out);
    return 0;
  }

  private EmbeddingLookup.Flags flags() {
    return new EmbeddingLookup.Flags(jobName, taskIndex, psHosts, workerHosts, vocabularySize, embeddingDim, batchSize,
        trainSteps, warmupSteps, learningRate, partitionStrategy, seed, psStrategy, security.security());
  }

  /** The step a worker runs ({@code --task_index}, default 0): feed ids and targets, run the train op, fetch the loss. */
  @Override
  public Explanation.Step describeStep() {
    if (taskIndex == null) {
      taskIndex = 0;
    }
    ClusterSpec cluster = ClusterSpec.fromFlags(psHosts, workerHosts);
    EmbeddingLookup.LookupGraph g = EmbeddingLookup.buildGraph(flags(), cluster);
    return new Explanation.Step("embedding-lookup", g.graph(), cluster, ClusterSpec.taskName("worker", taskIndex), g.config(),
        List.of(g.ids(), g.targets()), List.of(Shape.of(batchSize), Shape.of(batchSize, embeddingDim)),
        List.of(g.loss()), List.of(g.train()));
  }
}
