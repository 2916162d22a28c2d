package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.exec.Partition;
import dev.psflow.exec.Partitioner;
import dev.psflow.exec.Placer;
import dev.psflow.exec.Pruner;
import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Training through embeddingLookup: every shard gets an IndexedSlices of the rows it served, the
 * sparse applies touch only those rows (and agree with training the same table through a plain
 * gather), and under a ReplicaDeviceSetter the gathers and applies of each shard are placed on
 * its ps task, so that only ids and rows cross the wire.
 */
class EmbeddingTrainingTest {
  private static final long[] IDS = {9, 2, 4, 2, 0};

  static Stream<Arguments> optimizers() {
    return Stream.of(
        Arguments.of("GradientDescent", (Supplier<Optimizer>) () -> new GradientDescentOptimizer(0.1)),
        Arguments.of("Adagrad", (Supplier<Optimizer>) () -> new AdagradOptimizer(0.3)),
        Arguments.of("Adam", (Supplier<Optimizer>) () -> new AdamOptimizer(0.1)));
  }

  /** ½·Σ (rows − 1)², so that each row's gradient depends on its value. */
  private static Output loss(Ops tf, Output rows) {
    Output d = tf.sub(rows, tf.constant(1f));
    return tf.mul(tf.constant(0.5f), tf.reduceSum(tf.mul(d, d)));
  }

  private static PartitionedVariable table(Ops tf, String name) {
    return PartitionedVariable.create(tf, name, Shape.of(10, 4), DType.FLOAT32,
        (t, shape) -> t.randomUniform(shape, DType.FLOAT32, -1f, 1f, 11), VariablePartitioner.fixedSize(3));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("optimizers")
  void shardsGetSparseRowsAndOnlyTheRowsLookedUpChange(String name, Supplier<Optimizer> make) {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    PartitionedVariable sharded = table(tf, "sharded");
    Output ids = tf.constant(IDS);
    Optimizer opt = make.get();
    List<GradAndVar> grads = opt.computeGradients(loss(tf, Embeddings.embeddingLookup(tf, sharded, ids, "div", null)),
        sharded.shards());
    assertThat(grads).allSatisfy(gv -> assertThat(gv.gradient()).isInstanceOf(IndexedSlices.class));
    Operation train = opt.applyGradients(grads, null);
    // The same table, trained through a gather of its concatenation: the reference.
    PartitionedVariable whole = table(tf, "whole");
    Operation reference = make.get().minimize(loss(tf, tf.gather(whole, ids)), null, whole.shards());
    try (Session s = Session.open(g)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      Tensor before = s.runner().fetch(sharded).run().get(0);
      for (int step = 0; step < 3; step++) {
        s.runner().addTarget(train).addTarget(reference).run();
      }
      List<Tensor> after = s.runner().fetch(sharded).fetch(whole).run();
      Set<Long> used = new HashSet<>();
      for (long id : IDS) {
        used.add(id);
      }
      for (int row = 0; row < 10; row++) {
        for (int j = 0; j < 4; j++) {
          int i = row * 4 + j;
          assertThat(after.get(0).getDouble(i)).as("row %d", row).isCloseTo(after.get(1).getDouble(i), within(1e-6));
          if (!used.contains((long) row)) {
            assertThat(after.get(0).getDouble(i)).as("untouched row %d", row).isEqualTo(before.getDouble(i));
          } else {
            assertThat(after.get(0).getDouble(i)).as("trained row %d", row).isNotEqualTo(before.getDouble(i));
          }
        }
      }
    }
  }

  static Stream<Arguments> sparseApplies() {
    return Stream.of(
        Arguments.of("ResourceScatterSub", (Supplier<Optimizer>) () -> new GradientDescentOptimizer(0.5)),
        Arguments.of("ResourceSparseApplyAdagrad", (Supplier<Optimizer>) () -> new AdagradOptimizer(0.5)),
        Arguments.of("ResourceSparseApplyMomentum", (Supplier<Optimizer>) () -> new MomentumOptimizer(0.5, 0.9, false)),
        Arguments.of("ResourceSparseApplyRMSProp", (Supplier<Optimizer>) () -> new RMSPropOptimizer(0.01, 0.9, 0.5, 1e-10)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sparseApplies")
  void eachShardsGatherAndSparseApplyRunOnItsPsAndOnlyIdsAndRowsCross(String apply, Supplier<Optimizer> make) {
    ClusterSpec cluster = ClusterSpec.fromFlags("h:1,h:2,h:3", "h:4");
    Graph g = new Graph();
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0"));
    PartitionedVariable table = PartitionedVariable.create(tf, "emb", Shape.of(50_000, 32), DType.FLOAT32,
        (t, shape) -> t.zeros(shape, DType.FLOAT32), VariablePartitioner.fixedSize(3));
    Variable step = TrainingUtil.getOrCreateGlobalStep(tf);
    Output ids = tf.placeholder(DType.INT64, Shape.of(256));
    Output loss = loss(tf, Embeddings.embeddingLookup(tf, table, ids, "mod", null));
    Operation train = make.get().minimize(loss, step);

    List<Operation> ops = Pruner.prune(List.of(train, loss.op()), Set.of(ids));
    Map<Operation, String> placement = Placer.place(ops, cluster.cpuDevices(), "/job:worker/replica:0/task:0/device:CPU:0", false);
    for (int p = 0; p < 3; p++) {
      Variable shard = table.shards().get(p);
      String ps = "/job:ps/replica:0/task:" + p + "/device:CPU:0";
      assertThat(placement.get(shard.handle().op())).isEqualTo(ps);
      List<Operation> onShard = ops.stream().filter(op -> !op.inputs().isEmpty() && op.input(0).equals(shard.handle())).toList();
      assertThat(onShard).extracting(Operation::type).as("the ops that use shard %d in a step", p)
          .containsExactlyInAnyOrder("ResourceGather", apply);
      assertThat(onShard).allSatisfy(op -> assertThat(placement.get(op)).isEqualTo(ps));
    }
    for (Operation op : ops) {
      if (Set.of("DynamicPartition", "ParallelDynamicStitch", "FloorMod", "FloorDiv").contains(op.type())) {
        assertThat(placement.get(op)).as(op.name()).isEqualTo("/job:worker/replica:0/task:0/device:CPU:0");
      }
    }

    List<Partition> parts = Partitioner.partition(ops, placement, List.of(ids), List.of(loss), List.of(train));
    List<String> toPs = new ArrayList<>();
    List<String> toWorker = new ArrayList<>();
    for (Partition part : parts) {
      for (Operation op : part.graph().operations()) {
        if (op.type().equals("_Send") && !op.attrString("tensor_name").startsWith("^")) {
          String producer = g.requireOperation(op.attrString("tensor_name").replaceAll(":\\d+$", "")).type();
          (op.attrString("recv_device").contains("/job:ps/") ? toPs : toWorker).add(producer);
        }
      }
    }
    // To each ps: its ids (a DynamicPartition output, used by both its gather and its apply) and its
    // gradient rows (gathered from the stitch's gradient); back: the rows. Control edges aside, nothing else.
    assertThat(toPs).containsExactlyInAnyOrder("DynamicPartition", "DynamicPartition", "DynamicPartition",
        "GatherV2", "GatherV2", "GatherV2");
    assertThat(toWorker).containsExactly("ResourceGather", "ResourceGather", "ResourceGather");
  }

  /** No op of a step reads a shard's whole value (the lookup would move the table) or densifies its gradient. */
  @Test
  void theStepNeverReadsAWholeShard() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    PartitionedVariable table = table(tf, "emb");
    Output loss = loss(tf, Embeddings.embeddingLookup(tf, table, tf.constant(IDS), "mod", 1.5));
    Operation train = new GradientDescentOptimizer(0.1).minimize(loss, null);
    List<String> types = new ArrayList<>();
    Pruner.prune(List.of(train), Set.of()).forEach(op -> types.add(op.type()));
    assertThat(types).doesNotContain("ReadVariableOp", "UnsortedSegmentSum", "ResourceApplyGradientDescent")
        .contains("ResourceGather", "ResourceScatterSub", "DynamicPartition", "ParallelDynamicStitch");
  }
}
