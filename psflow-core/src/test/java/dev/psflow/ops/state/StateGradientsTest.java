package dev.psflow.ops.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.autodiff.Gradients;
import dev.psflow.exec.Session;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.ops.math.GradientCase;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The differentiable variable ops (ReadVariableOp, ResourceGather) against central finite
 * differences in float64: the variable is perturbed one element at a time through an assign fed
 * from a placeholder, and Σ R·y compared with the densified gradient Gradients gives the handle.
 */
class StateGradientsTest {
  private static final double EPS = 1e-6;

  /** A function of a [4, 3] variable. */
  record Case(String name, BiFunction<Ops, Variable, Output> f) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("ReadVariableOp", (tf, v) -> tf.square(v.value())),
        new Case("ResourceGather with repeats", (tf, v) -> tf.resourceGather(v, tf.constant(new int[] {2, 0, 2}))),
        new Case("ResourceGather with matrix int64 indices", (tf, v) -> tf.resourceGather(v, tf.constant(new long[] {3, 1, 3, 0}, 2, 2))),
        new Case("ResourceGather plus a dense read", (tf, v) -> tf.add(tf.resourceGather(v, tf.constant(new int[] {1, 1, 0, 3})),
            tf.square(v.value()))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void gradientMatchesFiniteDifferences(Case c) {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Tensor v0 = GradientCase.uniform(-1, 1, 4, 3);
    Variable v = tf.variable("emb", v0, true);
    Output y = c.f().apply(tf, v);
    Output gy = tf.placeholder(DType.FLOAT64, Shape.unknown());
    Output dv = Gradients.of(List.of(y), List.of(v.handle()), List.of(gy)).get(0);
    Output newValue = tf.placeholder(DType.FLOAT64, v0.shape());
    Operation set = tf.assign(v, newValue);
    try (Session s = Session.open(g)) {
      s.runner().addTarget(v.initializer()).run();
      Tensor r = GradientCase.uniform(-1, 1, s.runner().fetch(y).run().get(0).shape().toIntArray());
      double[] analytic = s.runner().feed(gy, r).fetch(dv).run().get(0).doubleData();
      double[] base = v0.doubleData();
      for (int j = 0; j < base.length; j++) {
        double[] plus = base.clone();
        plus[j] += EPS;
        double[] minus = base.clone();
        minus[j] -= EPS;
        double numeric = (weighted(s, set, newValue, plus, y, r) - weighted(s, set, newValue, minus, y, r)) / (2 * EPS);
        assertThat(analytic[j]).as("d y / d emb[%d]", j).isCloseTo(numeric, org.assertj.core.api.Assertions.within(1e-6));
      }
    }
  }

  private static double weighted(Session s, Operation set, Output newValue, double[] value, Output y, Tensor r) {
    s.runner().feed(newValue, Tensor.of(value, 4, 3)).addTarget(set).run();
    Tensor out = s.runner().fetch(y).run().get(0);
    double sum = 0;
    for (int i = 0; i < out.size(); i++) {
      sum += out.getDouble(i) * r.getDouble(i);
    }
    return sum;
  }

  @Test
  void everyDifferentiableStateOpHasACase() {
    Set<String> covered = new TreeSet<>();
    cases().forEach(c -> {
      Graph g = new Graph();
      Ops tf = Ops.create(g);
      c.f().apply(tf, tf.variable("v", Tensor.of(new double[12], 4, 3), true));
      g.operations().forEach(op -> covered.add(op.type()));
    });
    for (OpDef d : StateOps.definitions()) {
      if (d.gradient() != GradientFn.NONE) {
        assertThat(covered).as("a gradient case using %s", d.type()).contains(d.type());
      }
    }
  }

  @Test
  void resourceGatherGivesTheVariableTheRowsAsIndexedSlices() {
    Graph g = new Graph();
    Ops tf = Ops.create(g).withDevice("/job:ps/task:0");
    Variable v = tf.variable("emb", Tensor.of(new float[] {0, 1, 2, 3, 4, 5, 6, 7}, 4, 2), true);
    Ops worker = Ops.create(g);
    Output ids = worker.constant(new long[] {3, 1});
    Output rows = worker.resourceGather(v, ids);
    assertThat(rows.op().device()).as("colocated with the variable").isEqualTo(v.device());
    assertThat(rows.shape()).isEqualTo(Shape.of(2, 2));
    Operand grad = Gradients.compute(List.of(rows), List.of(v.handle()), List.of(worker.constant(new float[] {1, 2, 3, 4}, 2, 2)))
        .get(0);
    assertThat(grad).isInstanceOf(IndexedSlices.class);
    IndexedSlices slices = (IndexedSlices) grad;
    assertThat(slices.indices()).as("the lookup's own ids, so they cross the wire once").isEqualTo(ids);
    try (Session s = Session.open(g)) {
      s.runner().addTarget(v.initializer()).run();
      assertThat(s.runner().fetch(rows).run().get(0)).isEqualTo(Tensor.of(new float[] {6, 7, 2, 3}, 2, 2));
      assertThat(s.runner().fetch(slices.denseShape()).run().get(0)).isEqualTo(Tensor.vector(4L, 2L));
      assertThat(s.runner().fetch(slices).run().get(0).floatData()).containsExactly(0, 0, 3, 4, 0, 0, 1, 2);
    }
  }

  @Test
  void resourceGatherFailsOnABadIndexAndAnUninitializedVariable() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable v = tf.variable("emb", Tensor.of(new float[] {0, 1, 2, 3}, 2, 2), true);
    Output bad = tf.resourceGather(v, tf.constant(new int[] {0, 2}));
    try (Session s = Session.open(g)) {
      assertThatThrownBy(() -> s.runner().fetch(bad).run()).isInstanceOf(StatusException.class)
          .hasMessageContaining("uninitialized variable emb");
      s.runner().addTarget(v.initializer()).run();
      assertThatThrownBy(() -> s.runner().fetch(bad).run()).isInstanceOf(StatusException.class)
          .hasMessageContaining("indices[1] = 2 is not in [0, 2)");
    }
    assertThatThrownBy(() -> tf.resourceGather(v, tf.constant(new float[] {0}))).hasMessageContaining("indices must be int32 or int64");
  }
}
