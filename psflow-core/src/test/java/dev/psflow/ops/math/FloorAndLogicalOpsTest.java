package dev.psflow.ops.math;

import static dev.psflow.ops.math.GraphEval.eval;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import org.junit.jupiter.api.Test;

/** FloorDiv and FloorMod round toward −∞ as Python's // and % do; the logical ops broadcast. */
class FloorAndLogicalOpsTest {
  private final Ops tf = Ops.create(new Graph());

  @Test
  void integerFloorDivisionTakesTheSignOfTheDivisor() {
    Output x = tf.constant(new int[] {7, -7, 7, -7, 0});
    Output y = tf.constant(new int[] {2, 2, -2, -2, 3});
    assertThat(eval(tf.floorDiv(x, y)).intData()).containsExactly(3, -4, -4, 3, 0);
    assertThat(eval(tf.floorMod(x, y)).intData()).containsExactly(1, 1, -1, -1, 0);
    Output ids = tf.constant(new long[] {10, 11, -1});
    assertThat(eval(tf.floorMod(ids, tf.constant(3L))).longData()).containsExactly(1L, 2L, 2L);
    assertThat(eval(tf.floorDiv(ids, tf.constant(3L))).longData()).containsExactly(3L, 3L, -1L);
  }

  @Test
  void floatFloorDivisionAndModulo() {
    Output x = tf.constant(new float[] {7.5f, -7.5f, 7.5f});
    Output y = tf.constant(new float[] {2, 2, -2});
    assertThat(eval(tf.floorDiv(x, y)).floatData()).containsExactly(3, -4, -4);
    assertThat(eval(tf.floorMod(x, y)).floatData()).containsExactly(1.5f, 0.5f, -0.5f);
    Output d = tf.constant(Tensor.vector(-1.0, 4.0));
    assertThat(eval(tf.floorMod(d, tf.constant(4.0))).doubleData()).containsExactly(3.0, 0.0);
  }

  @Test
  void integerDivisionByZeroIsAnInvalidArgument() {
    assertThatThrownBy(() -> eval(tf.floorDiv(tf.constant(new int[] {1}), tf.constant(0)))).isInstanceOf(StatusException.class)
        .hasMessageContaining("Integer division by zero");
    assertThatThrownBy(() -> eval(tf.floorMod(tf.constant(new long[] {1}), tf.constant(0L)))).isInstanceOf(StatusException.class)
        .hasMessageContaining("Integer division by zero");
  }

  @Test
  void logicalAndOrNotBroadcast() {
    Output a = tf.constant(Tensor.of(new boolean[] {true, true, false, false}, 2, 2));
    Output b = tf.constant(Tensor.of(new boolean[] {true, false}, 2));
    Output and = tf.logicalAnd(a, b);
    assertThat(and.shape()).isEqualTo(Shape.of(2, 2));
    assertThat(eval(and).boolData()).containsExactly(true, false, false, false);
    assertThat(eval(tf.logicalOr(a, b)).boolData()).containsExactly(true, true, true, false);
    assertThat(eval(tf.logicalNot(a)).boolData()).containsExactly(false, false, true, true);
    assertThat(eval(tf.logicalAnd(a, tf.constant(Tensor.scalar(true)))).boolData()).containsExactly(true, true, false, false);
    assertThatThrownBy(() -> tf.logicalAnd(a, tf.constant(1f))).hasMessageContaining("LogicalAnd takes bool inputs");
  }
}
