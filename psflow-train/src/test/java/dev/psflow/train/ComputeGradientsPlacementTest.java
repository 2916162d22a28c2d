package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where minimize puts the backward pass: with the forward pass, on the worker; the applies with the variables. */
class ComputeGradientsPlacementTest {
  private final Graph g = new Graph();
  private final ClusterSpec cluster = ClusterSpec.fromFlags("localhost:2222", "localhost:2223,localhost:2224");
  private final Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:1"));
  private final Variable w = tf.variable("w", Tensor.of(new float[6], 3, 2), true);

  private Output loss() {
    Output x = tf.withName("x").placeholder(DType.FLOAT32, Shape.of(-1, 3));
    return tf.reduceSum(tf.relu(tf.matMul(x, w)), new int[] {0, 1});
  }

  private List<Operation> gradientOps(int since) {
    List<Operation> ops = g.operationsSince(since).stream().filter(op -> op.name().startsWith("gradients/")).toList();
    assertThat(ops).isNotEmpty();
    return ops;
  }

  @Test
  void theBackwardPassRequestsTheWorkerDeviceTheSetterGaveTheForwardPass() {
    Output loss = loss();
    int before = g.version();
    Operation train = new GradientDescentOptimizer(0.1).minimize(loss, null);
    assertThat(gradientOps(before)).extracting(Operation::device).containsOnly("/job:worker/task:1");
    assertThat(g.operationsSince(before)).filteredOn(op -> op.type().equals("ResourceApplyGradientDescent"))
        .extracting(Operation::device).containsExactly("/job:ps/task:0");
    assertThat(train.device()).isEqualTo("/job:ps/task:0");
  }

  @Test
  void colocateGradientsWithOpsColocatesEachGradientOpWithItsForwardOp() {
    Output loss = loss();
    int before = g.version();
    new SyncReplicasOptimizer(new GradientDescentOptimizer(0.1), 2, 2, "sync").computeGradients(loss, null, true);
    for (Operation op : gradientOps(before)) {
      String forward = op.name().replaceFirst("^gradients/(.*)_(grad|seed)/.*$", "$1");
      assertThat(op.colocationGroup()).as(op.name()).contains(forward);
      assertThat(op.device()).as(op.name()).isEqualTo(g.requireOperation(forward).device());
    }
  }
}
