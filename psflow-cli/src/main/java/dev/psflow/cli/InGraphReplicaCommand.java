package dev.psflow.cli;

import dev.psflow.distributed.Explanation;
import dev.psflow.cluster.ClusterSpec;
import dev.psflow.examples.InGraphReplica;
import dev.psflow.examples.MnistModel;
import dev.psflow.tensor.Shape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code psflow in-graph-replica}: MNIST with in-graph replication (one client, a tower per worker). */
@Command(name = "in-graph-replica", mixinStandardHelpOptions = true,
    description = "Distributed MNIST training with in-graph replication: worker 0's client builds one graph with the "
        + "variables on the ps and a tower per worker task, averages the towers' gradients on the ps and applies "
        + "them once per step; the other workers only serve.",
    footer = {"", "Example: psflow local-cluster --ps=1 --workers=2 in-graph-replica --train_steps=500"})
public final class InGraphReplicaCommand implements Callable<Integer>, StepToExplain {
  @Option(names = "--job_name", description = "job name: worker or ps")
  String jobName;

  @Option(names = "--task_index", description = "Task index; worker 0 is the client, the other workers only serve")
  Integer taskIndex;

  @Option(names = "--ps_hosts", defaultValue = "localhost:2222", description = "Comma-separated list of hostname:port pairs")
  String psHosts;

  @Option(names = "--worker_hosts", defaultValue = "localhost:2223,localhost:2224",
      description = "Comma-separated list of hostname:port pairs; one tower per worker")
  String workerHosts;

  @Option(names = "--hidden_units", defaultValue = "100", description = "Number of units in the hidden layer of the NN")
  int hiddenUnits;

  @Option(names = "--train_steps", defaultValue = "200", description = "Number of (global) training steps to perform")
  int trainSteps;

  @Option(names = "--batch_size", defaultValue = "100", description = "Training batch size of each tower")
  int batchSize;

  @Option(names = "--learning_rate", defaultValue = "0.01", description = "Learning rate")
  double learningRate;

  @Option(names = "--data_dir", description = "Directory for storing mnist data (default: datasets/mnist)")
  Path dataDir;

  @Mixin SecurityFlags security = new SecurityFlags();

  @Mixin ServerLimitOptions limits = new ServerLimitOptions();

  @Mixin MetricsFlags metrics = new MetricsFlags();

  @Override
  public Integer call() throws InterruptedException {
    InGraphReplica.run(flags(), metrics.apply(limits.serverOptions()), System.out);
    return 0;
  }

  private InGraphReplica.Flags flags() {
    return new InGraphReplica.Flags(jobName, taskIndex, psHosts, workerHosts, hiddenUnits, trainSteps, batchSize,
        learningRate, dataDir, security.security());
  }

  /** The client's step: feed each tower a batch, run the train op, fetch global_step. */
  @Override
  public Explanation.Step describeStep() {
    ClusterSpec cluster = ClusterSpec.fromFlags(psHosts, workerHosts);
    InGraphReplica.InGraph g = InGraphReplica.buildGraph(flags(), cluster);
    List<dev.psflow.graph.Output> feeds = new ArrayList<>();
    List<Shape> shapes = new ArrayList<>();
    for (MnistModel t : g.towers()) {
      feeds.addAll(List.of(t.x(), t.labels()));
      shapes.addAll(List.of(Shape.of(batchSize, 784), Shape.of(batchSize, 10)));
    }
    return new Explanation.Step("in-graph-replica", g.graph(), cluster, ClusterSpec.taskName("worker", 0), g.config(),
        feeds, shapes, List.of(g.stepAfterTrain()), List.of(g.trainStep()));
  }
}
