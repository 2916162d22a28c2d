package dev.psflow.examples;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.distributed.grpc.WireStats;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import dev.psflow.train.Embeddings;
import dev.psflow.train.GradientDescentOptimizer;
import dev.psflow.train.PartitionedVariable;
import dev.psflow.train.PsStrategy;
import dev.psflow.train.ReplicaDeviceSetter;
import dev.psflow.train.TrainingUtil;
import dev.psflow.train.VariablePartitioner;
import java.io.PrintStream;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A sparse embedding trained over the ps tasks: a {@code --vocabulary_size × --embedding_dim}
 * float table split into one shard per ps task (a {@link PartitionedVariable} under a replica
 * device setter), looked up with {@link Embeddings#embeddingLookup} at {@code --batch_size}
 * distinct random ids per step and pulled by gradient descent toward a fixed target row per id.
 * Each ps gathers and updates only its rows; each worker reports the bytes it moved on the wire
 * per step after {@code --warmup_steps}, against the payload of a sparse step (rows looked up ×
 * row bytes × 2 — rows to the worker, gradients back — plus the int64 ids), and the loss of its
 * first and last steps. The ps tasks join; worker 0 initializes the table, the others wait for it.
 */
public final class EmbeddingLookup {
  /** The program's flags. */
  public record Flags(String jobName, Integer taskIndex, String psHosts, String workerHosts, int vocabularySize,
      int embeddingDim, int batchSize, int trainSteps, int warmupSteps, double learningRate, String partitionStrategy,
      long seed, String psStrategy, TaskSecurity security) {}

  /** One worker's graph: the table, the fed ids and targets, the loss and its train op. */
  public record LookupGraph(Graph graph, PartitionedVariable table, Output ids, Output targets, Output loss,
      Operation train, Operation init, Output uninitialized, SessionOptions config) {}

  private EmbeddingLookup() {}

  public static LookupGraph buildGraph(Flags f, ClusterSpec cluster) {
    int task = f.taskIndex();
    Graph g = new Graph();
    Ops tf = Ops.create(g).withDeviceFunction(
        ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:" + task, "/job:ps/cpu:0",
            PsStrategy.named(f.psStrategy(), cluster.numTasks("ps"))));
    int shards = cluster.numTasks("ps");
    PartitionedVariable table = PartitionedVariable.create(tf, "embeddings", Shape.of(f.vocabularySize(), f.embeddingDim()),
        DType.FLOAT32, (t, shape) -> t.randomUniform(shape, DType.FLOAT32, -0.5f, 0.5f, f.seed()),
        VariablePartitioner.fixedSize(shards));
    Variable globalStep = TrainingUtil.getOrCreateGlobalStep(tf);
    Output ids = tf.withName("ids").placeholder(DType.INT64, Shape.of(f.batchSize()));
    Output targets = tf.withName("targets").placeholder(DType.FLOAT32, Shape.of(f.batchSize(), f.embeddingDim()));
    Output rows = Embeddings.embeddingLookup(tf, table, ids, f.partitionStrategy(), null);
    Output diff = tf.sub(rows, targets);
    Output loss = tf.withName("loss").mul(tf.constant(0.5f), tf.reduceSum(tf.mul(diff, diff)));
    Operation train = new GradientDescentOptimizer(f.learningRate()).minimize(loss, globalStep);
    SessionOptions config = SessionOptions.DEFAULTS.withAllowSoftPlacement(true)
        .withDeviceFilters(List.of("/job:ps", "/job:worker/task:" + task));
    return new LookupGraph(g, table, ids, targets, loss, train, tf.globalVariablesInitializer(),
        tf.reportUninitializedVariables(), config);
  }

  /** Runs one task; a ps never returns (it joins). */
  public static void run(Flags f, PrintStream out) throws InterruptedException {
    run(f, ServerOptions.DEFAULTS, out);
  }

  /** As {@link #run(Flags, PrintStream)}, the task's server made on top of {@code serverOptions} (its limits). */
  public static void run(Flags f, ServerOptions serverOptions, PrintStream out) throws InterruptedException {
    if (f.jobName() == null || f.jobName().isEmpty()) {
      throw new IllegalArgumentException("Must specify an explicit `job_name`");
    }
    if (f.taskIndex() == null) {
      throw new IllegalArgumentException("Must specify an explicit `task_index`");
    }
    checkFlags(f);
    ClusterSpec cluster = ClusterSpec.fromFlags(f.psHosts(), f.workerHosts());
    cluster.address(f.jobName(), f.taskIndex());
    Server server = Server.create(cluster, f.jobName(), f.taskIndex(),
        f.security().serverOptions(serverOptions, cluster, f.jobName(), f.taskIndex(), null));
    if (f.jobName().equals("ps")) {
      server.join();
      return;
    }
    int task = f.taskIndex();
    try {
      LookupGraph lg = buildGraph(f, cluster);
      for (Variable shard : lg.table().shards()) {
        out.printf(Locale.ROOT, "Worker %d: %s %s on %s%n", task, shard.name(), shard.shape(), shard.device());
      }
      try (Session s = Session.open(lg.graph(), server.target(), lg.config())) {
        if (task == 0) {
          s.runner().addTarget(lg.init()).run();
        } else {
          waitForInit(s, lg, out, task);
        }
        train(f, lg, s, out);
      }
    } finally {
      server.stop();
    }
  }

  private static void checkFlags(Flags f) {
    if (f.vocabularySize() < 1 || f.embeddingDim() < 1) {
      throw new IllegalArgumentException("--vocabulary_size and --embedding_dim must be positive, got "
          + f.vocabularySize() + " and " + f.embeddingDim());
    }
    if (f.batchSize() < 1 || f.batchSize() > f.vocabularySize()) {
      throw new IllegalArgumentException("--batch_size must be in [1, --vocabulary_size] (the ids of a step are distinct), got "
          + f.batchSize());
    }
    if (f.trainSteps() <= f.warmupSteps() || f.warmupSteps() < 0) {
      throw new IllegalArgumentException("--train_steps must exceed --warmup_steps >= 0, got " + f.trainSteps() + " and "
          + f.warmupSteps());
    }
    if (!Embeddings.MOD.equals(f.partitionStrategy()) && !Embeddings.DIV.equals(f.partitionStrategy())) {
      throw new IllegalArgumentException("--partition_strategy must be mod or div, got " + f.partitionStrategy());
    }
  }

  private static void waitForInit(Session s, LookupGraph lg, PrintStream out, int task) throws InterruptedException {
    out.println("Worker " + task + ": waiting for worker 0 to initialize the table");
    while (s.runner().fetch(lg.uninitialized()).run().get(0).size() > 0) {
      Thread.sleep(200);
    }
  }

  /** Trains --train_steps steps on distinct random ids and reports the loss and the bytes moved per step. */
  private static void train(Flags f, LookupGraph lg, Session s, PrintStream out) {
    int task = f.taskIndex();
    SplittableRandom random = new SplittableRandom(f.seed() + 1000L * (task + 1));
    WireStats.Snapshot before = null;
    double first = 0;
    double last = 0;
    for (int step = 0; step < f.trainSteps(); step++) {
      if (step == f.warmupSteps()) {
        before = WireStats.snapshot();
      }
      long[] ids = distinctIds(random, f.batchSize(), f.vocabularySize());
      Tensor loss = s.runner().feed(lg.ids(), Tensor.of(ids, ids.length))
          .feed(lg.targets(), targets(ids, f.embeddingDim())).addTarget(lg.train()).fetch(lg.loss()).run().get(0);
      last = loss.scalarDouble() / f.batchSize();
      first = step == 0 ? last : first;
      if ((step + 1) % 100 == 0) {
        out.printf(Locale.ROOT, "Worker %d: step %d: loss per example = %.4f%n", task, step + 1, last);
      }
    }
    WireStats.Snapshot moved = WireStats.snapshot().minus(before);
    int measured = f.trainSteps() - f.warmupSteps();
    double perStep = moved.total() / (double) measured;
    long rowBytes = (long) f.embeddingDim() * DType.FLOAT32.byteSize();
    long ideal = f.batchSize() * rowBytes * 2 + (long) f.batchSize() * DType.INT64.byteSize();
    out.printf(Locale.ROOT, "Worker %d: loss per example: first step %.4f, last step %.4f%n", task, first, last);
    out.printf(Locale.ROOT, "Worker %d: wire per step: %.0f bytes measured over %d steps (sent %d, received %d bytes "
        + "in %d messages), ideal %d bytes = %d rows x %d bytes x 2 + %d ids x 8 bytes, ratio %.4f%n", task, perStep,
        measured, moved.bytesSent(), moved.bytesReceived(), moved.messages(), ideal, f.batchSize(), rowBytes,
        f.batchSize(), perStep / ideal);
  }

  /** {@code n} distinct ids in [0, vocabulary): a step touches exactly n rows. */
  static long[] distinctIds(SplittableRandom random, int n, int vocabulary) {
    Set<Long> seen = new HashSet<>();
    long[] ids = new long[n];
    for (int i = 0; i < n; ) {
      long id = random.nextInt(vocabulary);
      if (seen.add(id)) {
        ids[i++] = id;
      }
    }
    return ids;
  }

  /** The target row of each id, fixed across steps: sin(0.37·id + j). */
  static Tensor targets(long[] ids, int dim) {
    float[] t = new float[ids.length * dim];
    for (int i = 0; i < ids.length; i++) {
      for (int j = 0; j < dim; j++) {
        t[i * dim + j] = (float) Math.sin(ids[i] * 0.37 + j);
      }
    }
    return Tensor.of(t, ids.length, dim);
  }
}
