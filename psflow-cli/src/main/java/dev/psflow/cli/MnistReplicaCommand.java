package dev.psflow.cli;

import dev.psflow.distributed.Explanation;
import dev.psflow.cluster.ClusterSpec;
import dev.psflow.examples.MnistModel;
import dev.psflow.examples.MnistReplica;
import dev.psflow.tensor.Shape;
import java.util.List;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code psflow mnist-replica}: TensorFlow's distributed MNIST replica example, with its flags. */
@Command(name = "mnist-replica", mixinStandardHelpOptions = true,
    description = "Distributed MNIST training and validation, with model replicas (TensorFlow's mnist_replica.py).")
public final class MnistReplicaCommand implements Callable<Integer>, StepToExplain, BackupWorkers {
  @Option(names = "--job_name", description = "job name: worker or ps")
  String jobName;

  @Option(names = "--task_index", description = "Worker task index, should be >= 0. task_index=0 is the master "
      + "worker task that performs the variable initialization")
  Integer taskIndex;

  @Option(names = "--ps_hosts", defaultValue = "localhost:2222", description = "Comma-separated list of hostname:port pairs")
  String psHosts;

  @Option(names = "--worker_hosts", defaultValue = "localhost:2223,localhost:2224",
      description = "Comma-separated list of hostname:port pairs")
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

  @Option(names = "--ps_strategy", defaultValue = "greedy", description = "How the variables are spread over the ps "
      + "tasks: greedy (each to the ps holding the fewest bytes) or round_robin (TensorFlow's default) "
      + "(default: ${DEFAULT-VALUE})")
  String psStrategy;

  @Mixin SecurityFlags security = new SecurityFlags();

  @Mixin ServerLimitOptions limits = new ServerLimitOptions();

  @Override
  public Integer call() throws InterruptedException {
    MnistReplica.run(flags(), limits.serverOptions(), System.out);
    return 0;
  }

  private MnistReplica.Flags flags() {
    return new MnistReplica.Flags(jobName, taskIndex, psHosts, workerHosts, hiddenUnits, trainSteps, batchSize,
        learningRate, dataDir, downloadOnly, existingServers, numGpus, syncReplicas, replicasToAggregate,
        logDir, saveCheckpointSecs, saveCheckpointSteps, psStrategy, security.security());
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
