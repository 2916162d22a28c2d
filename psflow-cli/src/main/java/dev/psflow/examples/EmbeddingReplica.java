package dev.psflow.examples;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.SparseTensor;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.train.AdagradOptimizer;
import dev.psflow.train.Embeddings;
import dev.psflow.train.Optimizer;
import dev.psflow.train.PartitionedVariable;
import dev.psflow.train.PsStrategy;
import dev.psflow.train.ReplicaDeviceSetter;
import dev.psflow.train.SyncReplicasOptimizer;
import dev.psflow.train.TrainingUtil;
import java.nio.file.Path;
import java.util.List;

/**
 * A big sparse model in TensorFlow's between-graph replica style: a {@code --vocab_size ×
 * --embedding_dim} float table (250M parameters by default: 7,812,500 × 32, 1 GB), partitioned
 * automatically over the ps tasks by the replica device setter (it is over the partition
 * threshold), looked up for {@link ClickData} examples ({@code --ids_per_example} Zipf-distributed
 * hashed ids each) with {@link Embeddings#embeddingLookupSparse} and mean-pooled, then a small
 * dense head ({@code relu} layer and one logit) trained for click prediction with logistic loss
 * by Adagrad — sparse updates of the table's rows, on each row's ps. Asynchronous by default,
 * through a {@link SyncReplicasOptimizer} with {@code --sync_replicas}. Each ps initializes its own
 * shard (and its Adagrad accumulators) where it lives: no table crosses the wire at init.
 *
 * <p>The training loop and its figures are in {@link EmbeddingReplicaRun}; this class holds the
 * flags and the graph.
 */
public final class EmbeddingReplica {
  /** The example's flags. */
  public record Flags(String jobName, Integer taskIndex, String psHosts, String workerHosts, long vocabSize,
      int embeddingDim, int idsPerExample, int hiddenUnits, int batchSize, int trainSteps, int warmupSteps,
      double learningRate, double zipfExponent, boolean syncReplicas, Integer replicasToAggregate, String psStrategy,
      long partitionThresholdBytes, long seed, Path logDir, Integer saveCheckpointSteps, boolean timeCheckpoint,
      TaskSecurity security) {}

  /** One worker's graph: the table, the sparse-id feeds, labels, loss, train op, and its session config. */
  public record ReplicaGraph(Graph graph, PartitionedVariable table, Output indices, Output ids, Output denseShape,
      Output labels, Output loss, Operation train, Operation init, Variable globalStep, SessionOptions config,
      SyncReplicasOptimizer sync, long denseParameters) {}

  private EmbeddingReplica() {}

  /** Builds worker {@code f.taskIndex()}'s graph under a size-aware replica device setter. */
  public static ReplicaGraph buildGraph(Flags f, ClusterSpec cluster) {
    checkFlags(f);
    int task = f.taskIndex();
    int numPs = cluster.numTasks("ps");
    Graph g = new Graph();
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:" + task,
        "/job:ps/cpu:0", PsStrategy.named(f.psStrategy(), numPs), f.partitionThresholdBytes()));
    int d = f.embeddingDim();
    float scale = (float) (1 / Math.sqrt(d));
    // Truncated standard normal rows (TensorFlow's random_normal_initializer has stddev 1 too): one op, so
    // initializing a shard holds its draws and the variable's copy of them, not also a scaled and a shifted copy.
    PartitionedVariable table = PartitionedVariable.create(tf, "embeddings", Shape.of(f.vocabSize(), d), DType.FLOAT32,
        (t, shape) -> t.truncatedNormal(t.constant(shape.toIntArray()), DType.FLOAT32, f.seed()));
    int h = f.hiddenUnits();
    Variable hidW = tf.variable("hid_w", tf.truncatedNormal(Shape.of(d, h), DType.FLOAT32, scale, f.seed() + 1));
    Variable hidB = tf.variable("hid_b", tf.fill(tf.constant(new int[] {h}), tf.constant(0.1f)));
    Variable outW = tf.variable("out_w", tf.truncatedNormal(Shape.of(h, 1), DType.FLOAT32,
        (float) (1 / Math.sqrt(h)), f.seed() + 2));
    Variable outB = tf.variable("out_b", tf.zeros(Shape.of(1), DType.FLOAT32));
    Variable globalStep = TrainingUtil.getOrCreateGlobalStep(tf);

    int n = f.batchSize() * f.idsPerExample();
    Output indices = tf.withName("ids_indices").placeholder(DType.INT64, Shape.of(n, 2));
    Output ids = tf.withName("ids").placeholder(DType.INT64, Shape.of(n));
    Output denseShape = tf.withName("ids_shape").placeholder(DType.INT64, Shape.of(2));
    Output labels = tf.withName("labels").placeholder(DType.FLOAT32, Shape.of(f.batchSize(), 1));
    Output pooled = Embeddings.embeddingLookupSparse(tf, table, new SparseTensor(indices, ids, denseShape), null,
        Embeddings.MOD, "mean", null);
    Output hidden = tf.relu(tf.add(tf.matMul(pooled, hidW), hidB));
    Output logits = tf.add(tf.matMul(hidden, outW), outB);
    Output loss = tf.withName("loss").reduceMean(sigmoidCrossEntropy(tf, labels, logits));

    Optimizer opt = new AdagradOptimizer(f.learningRate());
    SyncReplicasOptimizer sync = null;
    if (f.syncReplicas()) {
      int workers = cluster.numTasks("worker");
      int aggregate = f.replicasToAggregate() != null ? f.replicasToAggregate() : workers;
      sync = new SyncReplicasOptimizer(opt, aggregate, workers, "embedding_sync_replicas");
      opt = sync;
    }
    Operation train = opt.minimize(loss, globalStep);
    SessionOptions config = SessionOptions.DEFAULTS.withAllowSoftPlacement(true)
        .withDeviceFilters(List.of("/job:ps", "/job:worker/task:" + task));
    long dense = (long) d * h + h + h + 1;
    return new ReplicaGraph(g, table, indices, ids, denseShape, labels, loss, train, tf.globalVariablesInitializer(),
        globalStep, config, sync, dense);
  }

  /**
   * TensorFlow's {@code sigmoid_cross_entropy_with_logits} in its stable form:
   * {@code max(x, 0) − x·z + log(1 + exp(−|x|))}; its gradient is {@code sigmoid(x) − z}.
   */
  static Output sigmoidCrossEntropy(Ops tf, Output labels, Output logits) {
    Ops s = tf.withSubScope("logistic_loss");
    Output relu = s.maximum(logits, s.zerosLike(logits));
    Output softplus = s.log(s.add(s.constant(1f), s.exp(s.neg(s.abs(logits)))));
    return s.add(s.sub(relu, s.mul(logits, labels)), softplus);
  }

  static void checkFlags(Flags f) {
    if (f.taskIndex() == null) {
      throw new IllegalArgumentException("Must specify an explicit `task_index`");
    }
    if (f.vocabSize() < 1 || f.embeddingDim() < 1 || f.idsPerExample() < 1 || f.hiddenUnits() < 1) {
      throw new IllegalArgumentException("--vocab_size, --embedding_dim, --ids_per_example and --hidden_units must be "
          + "positive, got " + f.vocabSize() + ", " + f.embeddingDim() + ", " + f.idsPerExample() + ", " + f.hiddenUnits());
    }
    if (f.batchSize() < 1 || f.trainSteps() < 1 || f.warmupSteps() < 0) {
      throw new IllegalArgumentException("--batch_size and --train_steps must be positive and --warmup_steps >= 0, got "
          + f.batchSize() + ", " + f.trainSteps() + ", " + f.warmupSteps());
    }
    if (!(f.zipfExponent() > 0) || f.zipfExponent() == 1.0) {
      throw new IllegalArgumentException("--zipf_exponent must be > 0 and not exactly 1, got " + f.zipfExponent());
    }
    if (f.partitionThresholdBytes() <= 0) {
      throw new IllegalArgumentException("--partition_threshold_mb must be positive, got " + f.partitionThresholdBytes()
          + " bytes");
    }
  }
}
