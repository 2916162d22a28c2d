package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import org.junit.jupiter.api.Test;

class ReplicaDeviceSetterTest {
  private final ClusterSpec cluster = ClusterSpec.fromFlags("h:1,h:2", "h:3,h:4");
  private final Graph g = new Graph();

  @Test
  void variablesGoRoundRobinToPsTasksAndOtherOpsToTheWorker() {
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:1", "/job:ps",
        PsStrategy.named("round_robin", 2)));
    Variable a = tf.variable("a", tf.constant(1f));
    Variable b = tf.variable("b", tf.constant(1f));
    Variable c = tf.variable("c", tf.constant(1f));
    Output sum = tf.add(a, b);
    assertThat(a.device()).isEqualTo("/job:ps/task:0");
    assertThat(b.device()).isEqualTo("/job:ps/task:1");
    assertThat(c.device()).isEqualTo("/job:ps/task:0");
    assertThat(sum.op().device()).isEqualTo("/job:worker/task:1");
    // reads and initializers follow their variable
    assertThat(a.value().op().colocationGroup()).contains("a");
  }

  @Test
  void anExplicitRequestWinsOverTheSetter() {
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:1/gpu:0"));
    Variable pinned = tf.withDevice("/job:ps/task:1").variable("pinned", tf.constant(1f));
    Output onCpu = tf.withDevice("/cpu:0").constant(2f);
    assertThat(pinned.device()).isEqualTo("/job:ps/task:1");
    assertThat(onCpu.op().device()).isEqualTo("/job:worker/task:1/device:CPU:0");
  }

  @Test
  void greedyLoadBalancingPutsTheBigVariableAloneAndTheSmallOnesTogether() {
    ReplicaDeviceSetter setter = ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0", "/job:ps",
        new GreedyLoadBalancingStrategy(2));
    Ops tf = Ops.create(g).withDeviceFunction(setter);
    Variable hidW = tf.variable("hid_w", tf.zeros(Shape.of(784, 100), DType.FLOAT32));
    Variable hidB = tf.variable("hid_b", tf.zeros(Shape.of(100), DType.FLOAT32));
    Variable smW = tf.variable("sm_w", tf.zeros(Shape.of(100, 10), DType.FLOAT32));
    Variable smB = tf.variable("sm_b", tf.zeros(Shape.of(10), DType.FLOAT32));
    assertThat(hidW.device()).isEqualTo("/job:ps/task:0");
    assertThat(hidB.device()).isEqualTo("/job:ps/task:1");
    assertThat(smW.device()).isEqualTo("/job:ps/task:1");
    assertThat(smB.device()).isEqualTo("/job:ps/task:1");
  }

  @Test
  void byDefaultEachVariableGoesToThePsTaskHoldingTheFewestBytes() {
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0"));
    Variable hidW = tf.variable("hid_w", tf.zeros(Shape.of(784, 100), DType.FLOAT32));
    Variable hidB = tf.variable("hid_b", tf.zeros(Shape.of(100), DType.FLOAT32));
    Variable smW = tf.variable("sm_w", tf.zeros(Shape.of(100, 10), DType.FLOAT32));
    assertThat(hidW.device()).isEqualTo("/job:ps/task:0");
    assertThat(hidB.device()).isEqualTo("/job:ps/task:1");
    assertThat(smW.device()).isEqualTo("/job:ps/task:1");
  }

  @Test
  void roundRobinIsAskedForByName() {
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0", "/job:ps",
        PsStrategy.named(PsStrategy.ROUND_ROBIN, 2)));
    Variable hidW = tf.variable("hid_w", tf.zeros(Shape.of(784, 100), DType.FLOAT32));
    Variable hidB = tf.variable("hid_b", tf.zeros(Shape.of(100), DType.FLOAT32));
    Variable smW = tf.variable("sm_w", tf.zeros(Shape.of(100, 10), DType.FLOAT32));
    assertThat(hidW.device()).isEqualTo("/job:ps/task:0");
    assertThat(hidB.device()).isEqualTo("/job:ps/task:1");
    assertThat(smW.device()).isEqualTo("/job:ps/task:0");
    assertThatThrownBy(() -> PsStrategy.named("random", 2))
        .hasMessage("--ps_strategy must be greedy or round_robin, got 'random'");
  }

  @Test
  void aVariableOverThePartitionThresholdIsSplitOverAllPsTasksAndASmallOneIsNot() {
    ReplicaDeviceSetter setter = ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0", "/job:ps", null, 1000);
    Ops tf = Ops.create(g).withDeviceFunction(setter);
    PartitionedVariable big = PartitionedVariable.create(tf, "big", Shape.of(101, 8), DType.FLOAT32,
        (t, shape) -> t.randomUniform(shape, DType.FLOAT32, -1f, 1f, 7));
    PartitionedVariable small = PartitionedVariable.create(tf, "small", Shape.of(10, 8), DType.FLOAT32,
        (t, shape) -> t.zeros(shape, DType.FLOAT32));
    assertThat(big.shards()).extracting(Variable::name).containsExactly("big/part_0", "big/part_1");
    assertThat(big.shards()).extracting(v -> v.shape().size(0)).containsExactly(51L, 50L);
    assertThat(big.shards()).extracting(Variable::device).containsExactly("/job:ps/task:0", "/job:ps/task:1");
    assertThat(small.shards()).extracting(Variable::name).containsExactly("small/part_0");
    // Each shard's initial value is computed with the shard, on its ps: nothing crosses at init.
    for (Variable shard : big.shards()) {
      assertThat(shard.initialValue().op().colocationGroup()).contains(shard.name());
    }
  }

  @Test
  void theDefaultThresholdIs64MiBSoTheBigEmbeddingTableIsSplit() {
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(
        ClusterSpec.fromFlags("h:1,h:2,h:3,h:4", "h:5"), "/job:worker/task:0"));
    PartitionedVariable table = PartitionedVariable.create(tf, "embeddings", Shape.of(7_812_500, 32), DType.FLOAT32,
        (t, shape) -> t.randomUniform(shape, DType.FLOAT32, -0.05f, 0.05f, 1));
    PartitionedVariable head = PartitionedVariable.create(tf, "head", Shape.of(32, 1), DType.FLOAT32,
        (t, shape) -> t.zeros(shape, DType.FLOAT32));
    assertThat(table.shards()).extracting(v -> v.shape().size(0)).containsOnly(1_953_125L);
    assertThat(table.shards()).extracting(Variable::device)
        .containsExactly("/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2", "/job:ps/task:3");
    assertThat(head.shards()).hasSize(1);
    assertThat(ReplicaDeviceSetter.DEFAULT_PARTITION_THRESHOLD_BYTES).isEqualTo(64L * 1024 * 1024);
  }

  @Test
  void aPartitionedVariableIsSplitAlongAxisZeroAcrossPsTasks() {
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0"));
    PartitionedVariable w = PartitionedVariable.create(tf, "emb", Shape.of(5, 2), DType.FLOAT32,
        (t, shape) -> t.ones(shape, DType.FLOAT32), VariablePartitioner.fixedSize(2));
    assertThat(w.shards()).extracting(Variable::name).containsExactly("emb/part_0", "emb/part_1");
    assertThat(w.shards()).extracting(v -> v.shape().size(0)).containsExactly(3L, 2L);
    assertThat(w.shards()).extracting(Variable::device).containsExactly("/job:ps/task:0", "/job:ps/task:1");
    assertThat(VariablePartitioner.minMax(4, 1024).numShards(Shape.of(784, 100), DType.FLOAT32)).isEqualTo(4);
    assertThat(VariablePartitioner.minMax(4, 1 << 20).numShards(Shape.of(784, 100), DType.FLOAT32)).isEqualTo(1);
  }

  @Test
  void readingAPartitionedVariableConcatenatesItsShards() {
    Ops tf = Ops.create(g);
    PartitionedVariable w = PartitionedVariable.create(tf, "w", Shape.of(3, 2), DType.FLOAT32,
        (t, shape) -> t.fill(t.constant(shape.toIntArray()), t.constant((float) shape.size(0))), VariablePartitioner.fixedSize(2));
    try (Session s = Session.open(g)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      assertThat(s.runner().fetch(w).run().get(0)).isEqualTo(Tensor.of(new float[] {2, 2, 2, 2, 1, 1}, 3, 2));
    }
  }
}
