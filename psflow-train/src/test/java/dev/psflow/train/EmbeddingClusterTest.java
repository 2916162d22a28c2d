package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.grpc.WireStats;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An embedding table split over three ps Servers and trained from a worker Server in this JVM,
 * over real gRPC on loopback: the loss falls, and the bytes on the wire per step — every message
 * of every task, all of which this JVM sends — stay within 10% of the payload a sparse lookup
 * needs: each row looked up goes to the worker and its gradient back, plus the ids to the ps.
 */
class EmbeddingClusterTest {
  private static final int VOCABULARY = 20_000;
  private static final int DIM = 32;
  private static final int BATCH = 1024;

  private final List<Server> servers = new ArrayList<>();
  private ClusterSpec cluster;

  @BeforeEach
  void startCluster() {
    cluster = FreePorts.localCluster(3, 1);
    for (int i = 0; i < 3; i++) {
      servers.add(Server.create(cluster, "ps", i));
    }
    servers.add(Server.create(cluster, "worker", 0));
  }

  @AfterEach
  void stopCluster() {
    servers.forEach(Server::stop);
  }

  @Test
  void aShardedEmbeddingTrainsAndEachStepMovesOnlyTheRowsItUses() {
    Graph g = new Graph();
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0"));
    PartitionedVariable table = PartitionedVariable.create(tf, "embeddings", Shape.of(VOCABULARY, DIM), DType.FLOAT32,
        (t, shape) -> t.randomUniform(shape, DType.FLOAT32, -0.5f, 0.5f, 3), VariablePartitioner.fixedSize(3));
    Output ids = tf.placeholder(DType.INT64, Shape.of(BATCH));
    Output targets = tf.placeholder(DType.FLOAT32, Shape.of(BATCH, DIM));
    Output rows = Embeddings.embeddingLookup(tf, table, ids, "mod", null);
    Output diff = tf.sub(rows, targets);
    Output loss = tf.mul(tf.constant(0.5f), tf.reduceSum(tf.mul(diff, diff)));
    // lr 0.5 on ½‖row − target‖² moves each row looked up halfway to its target.
    Operation train = new GradientDescentOptimizer(0.5).minimize(loss, TrainingUtil.getOrCreateGlobalStep(tf));
    assertThat(table.shards()).extracting(v -> v.device())
        .containsExactly("/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2");

    SplittableRandom random = new SplittableRandom(5);
    SessionOptions options = SessionOptions.DEFAULTS.withDeviceFilters(List.of("/job:ps", "/job:worker/task:0"));
    try (Session s = Session.open(g, servers.get(3).target(), options)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      int warmup = 3;
      int steps = 40;
      double first = 0;
      double last = 0;
      WireStats.Snapshot before = null;
      for (int step = 0; step < warmup + steps; step++) {
        if (step == warmup) {
          before = WireStats.snapshot();
        }
        long[] batch = uniqueIds(random, BATCH, VOCABULARY);
        double l = s.runner().feed(ids, Tensor.of(batch, BATCH)).feed(targets, targetsOf(batch)).addTarget(train)
            .fetch(loss).run().get(0).scalarDouble() / BATCH;
        first = step == 0 ? l : first;
        last = l;
      }
      WireStats.Snapshot moved = WireStats.snapshot().minus(before);
      // In one JVM each message is counted twice, sent and received: the bytes sent are all the bytes moved.
      double perStep = moved.bytesSent() / (double) steps;
      long ideal = (long) BATCH * DIM * 4 * 2 + BATCH * 8L;
      assertThat(perStep / ideal).as("bytes per step %.0f against the payload %d", perStep, ideal)
          .isBetween(1.0, 1.1);
      assertThat(last).as("loss per example, first step %f", first).isLessThan(0.6 * first);
    }
  }

  /** {@code n} distinct ids in [0, vocabulary), so that each step touches exactly n rows. */
  static long[] uniqueIds(SplittableRandom random, int n, int vocabulary) {
    java.util.Set<Long> seen = new java.util.HashSet<>();
    long[] ids = new long[n];
    for (int i = 0; i < n; ) {
      long id = random.nextInt(vocabulary);
      if (seen.add(id)) {
        ids[i++] = id;
      }
    }
    return ids;
  }

  /** A fixed target row for each id, the same in every step. */
  static Tensor targetsOf(long[] ids) {
    float[] t = new float[ids.length * DIM];
    for (int i = 0; i < ids.length; i++) {
      for (int j = 0; j < DIM; j++) {
        t[i * DIM + j] = (float) Math.sin(ids[i] * 0.37 + j);
      }
    }
    return Tensor.of(t, ids.length, DIM);
  }
}
