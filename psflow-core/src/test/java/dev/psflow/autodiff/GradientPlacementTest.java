package dev.psflow.autodiff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.exec.Placer;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.ReadVariableOp;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where the backward pass goes: each gradient op requests its forward op's device, or with
 * colocateGradientsWithOps joins its forward op's colocation group; a value used on two devices has
 * its gradients summed where it was produced.
 */
class GradientPlacementTest {
  static final String PS0 = "/job:ps/replica:0/task:0/device:CPU:0";
  static final String W0 = "/job:worker/replica:0/task:0/device:CPU:0";
  static final String W1 = "/job:worker/replica:0/task:1/device:CPU:0";
  static final List<String> DEVICES = List.of(PS0, W0, W1);

  private final Graph g = new Graph();
  private final Ops tf = Ops.create(g);
  private final Variable w = tf.withDevice("/job:ps/task:0").variable("w", tf.constant(Tensor.vector(1.0, 2.0, 3.0)));

  /** Tower i: sum(w * x_i), built under /job:worker/task:i, named tower_i/... */
  private Output tower(Ops scoped, int i, Output wValue) {
    Ops t = scoped.withDevice("/job:worker/task:" + i).withSubScope("tower_" + i);
    Output x = t.withName("x").placeholder(DType.FLOAT64, dev.psflow.tensor.Shape.of(3));
    return t.reduceSum(t.relu(t.mul(wValue, x)));
  }

  private List<Operation> opsNamed(int since, String prefix) {
    List<Operation> out = g.operationsSince(since).stream().filter(op -> op.name().startsWith(prefix)).toList();
    assertThat(out).as("ops named " + prefix + "*").isNotEmpty();
    return out;
  }

  @Test
  void eachTowersBackwardPassRequestsItsTowersDevice() {
    Output loss0 = tower(tf, 0, w.value());
    Output loss1 = tower(tf, 1, w.value());
    int before = g.version();
    Gradients.of(List.of(loss0, loss1), List.of(w.handle()));
    assertThat(opsNamed(before, "gradients/tower_0/")).extracting(Operation::device).containsOnly("/job:worker/task:0");
    assertThat(opsNamed(before, "gradients/tower_1/")).extracting(Operation::device).containsOnly("/job:worker/task:1");
    for (Operation op : g.operationsSince(before)) {
      assertThat(op.colocationGroup()).as(op.name()).isEmpty();
    }
  }

  @Test
  void aValueUsedOnTwoDevicesHasItsGradientsSummedWhereItWasProduced() {
    // w/read (on the ps) feeds both towers: its two gradients meet in one AddN, with w/read.
    Output loss = tf.add(tower(tf, 0, w.value()), tower(tf, 1, w.value()));
    int before = g.version();
    Output grad = Gradients.of(List.of(loss), List.of(w.handle())).get(0);
    assertThat(grad.op().type()).isEqualTo("AddN");
    assertThat(grad.op().device()).isEqualTo("/job:ps/task:0");
    assertThat(grad.op().inputs()).extracting(in -> in.op().device())
        .containsExactlyInAnyOrder("/job:worker/task:0", "/job:worker/task:1");
    Map<Operation, String> placed = Placer.place(g.operations(), DEVICES, W0, false);
    assertThat(placed.get(grad.op())).isEqualTo(PS0);
    assertThat(opsNamed(before, "gradients/tower_1/")).extracting(placed::get).containsOnly(W1);
  }

  @Test
  void colocateGradientsWithOpsPutsEachGradientOpInItsForwardOpsGroup() {
    Output loss0 = tower(tf, 0, w.value());
    Output loss1 = tower(tf, 1, w.value());
    int before = g.version();
    Gradients.of(List.of(loss0, loss1), List.of(w.handle()), null, true);
    Map<Operation, String> placed = Placer.place(g.operations(), DEVICES, W0, false);
    for (Operation op : opsNamed(before, "gradients/tower_")) {
      // gradients/tower_1/Mul_grad/Mul is colocated with tower_1/Mul; gradients/tower_1/Sum_seed/.. with tower_1/Sum
      String forward = op.name().replaceFirst("^gradients/(.*)_(grad|seed)/.*$", "$1");
      assertThat(op.colocationGroup()).as(op.name()).contains(forward);
      assertThat(placed.get(op)).as(op.name()).isEqualTo(placed.get(g.requireOperation(forward)));
    }
    assertThat(opsNamed(before, "gradients/tower_1/")).extracting(placed::get).containsOnly(W1);
    // the sum of both towers' gradients of w/read is colocated with w/read, in w's group
    Operation sum = opsNamed(before, "gradients/AddN").get(0);
    assertThat(sum.colocationGroup()).contains("w");
    assertThat(placed.get(sum)).isEqualTo(PS0);
  }

  @Test
  void colocationFollowsAForwardOpPlacedOnlyByItsGroupWhileARequestFollowsOnlyRequests() {
    // A raw read of w requests no device: the placer puts it with w's handle, on the ps.
    Output read = ReadVariableOp.create(tf.withName("raw_read").scope(), w.handle(), DType.FLOAT64);
    Output loss = tf.add(tower(tf, 0, read), tower(tf, 1, read));

    Output requested = Gradients.of(List.of(loss), List.of(read)).get(0);
    Output colocated = Gradients.of(List.of(loss), List.of(read), null, true).get(0);

    Map<Operation, String> placed = Placer.place(g.operations(), DEVICES, W0, false);
    assertThat(placed.get(read.op())).isEqualTo(PS0);
    assertThat(colocated.op().type()).isEqualTo("AddN");
    assertThat(placed.get(colocated.op())).as("sum colocated with raw_read").isEqualTo(PS0);
    assertThat(requested.op().device()).as("raw_read requested nothing").isEmpty();
    assertThat(placed.get(requested.op())).as("the session's default device").isEqualTo(W0);
  }
}
