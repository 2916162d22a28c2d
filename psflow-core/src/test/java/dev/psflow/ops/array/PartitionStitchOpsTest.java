package dev.psflow.ops.array;

import static dev.psflow.ops.math.GraphEval.eval;
import static dev.psflow.ops.math.GraphEval.evalAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** DynamicPartition, DynamicStitch and Unique against TensorFlow's documented examples and edge cases. */
class PartitionStitchOpsTest {
  private final Ops tf = Ops.create(new Graph());

  @Test
  void dynamicPartitionKeepsOrderWithinEachPartition() {
    // TF's doc: partitions [0, 0, 1, 1, 0], data [10, 20, 30, 40, 50] -> [10, 20, 50], [30, 40]
    List<Output> parts = tf.dynamicPartition(tf.constant(new long[] {10, 20, 30, 40, 50}),
        tf.constant(new int[] {0, 0, 1, 1, 0}), 2);
    List<Tensor> r = evalAll(parts, Map.of());
    assertThat(r.get(0)).isEqualTo(Tensor.vector(10L, 20L, 50L));
    assertThat(r.get(1)).isEqualTo(Tensor.vector(30L, 40L));
  }

  @Test
  void dynamicPartitionOfRowsByAMatrixOfPartitionsAndAnEmptyPartition() {
    // data [2, 2, 2]: partitions [[1, 0], [1, 1]] pick slices of shape [2]
    Output data = tf.constant(new float[] {1, 2, 3, 4, 5, 6, 7, 8}, 2, 2, 2);
    List<Output> parts = tf.dynamicPartition(data, tf.constant(new int[] {1, 0, 1, 1}, 2, 2), 3);
    assertThat(parts.get(0).shape()).isEqualTo(Shape.of(-1, 2));
    List<Tensor> r = evalAll(parts, Map.of());
    assertThat(r.get(0)).isEqualTo(Tensor.of(new float[] {3, 4}, 1, 2));
    assertThat(r.get(1)).isEqualTo(Tensor.of(new float[] {1, 2, 5, 6, 7, 8}, 3, 2));
    assertThat(r.get(2)).isEqualTo(Tensor.of(new float[0], 0, 2));
  }

  @Test
  void dynamicPartitionRejectsAPartitionOutOfRange() {
    List<Output> parts = tf.dynamicPartition(tf.constant(new int[] {1, 2}), tf.constant(new int[] {0, 2}), 2);
    assertThatThrownBy(() -> eval(parts.get(0))).isInstanceOf(StatusException.class)
        .hasMessageContaining("partitions[1] = 2 is not in [0, 2)");
    assertThatThrownBy(() -> tf.dynamicPartition(tf.constant(new int[] {1}), tf.constant(new long[] {0}), 1))
        .hasMessageContaining("partitions must be int32");
  }

  @Test
  void dynamicStitchInterleavesAndTheLastWriteWins() {
    // TF's doc: indices [6], [4, 1], [[5, 2], [0, 3]]; data [61, 62], [[41, 42], [11, 12]], [[[51, 52], [21, 22]], [[1, 2], [31, 32]]]
    Output merged = tf.dynamicStitch(
        List.of(tf.constant(new int[] {6}), tf.constant(new int[] {4, 1}), tf.constant(new int[] {5, 2, 0, 3}, 2, 2)),
        List.of(tf.constant(new int[] {61, 62}, 1, 2), tf.constant(new int[] {41, 42, 11, 12}, 2, 2),
            tf.constant(new int[] {51, 52, 21, 22, 1, 2, 31, 32}, 2, 2, 2)));
    assertThat(merged.shape()).isEqualTo(Shape.of(7, 2));
    assertThat(eval(merged)).isEqualTo(Tensor.of(new int[] {1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62}, 7, 2));
    Output repeated = tf.dynamicStitch(List.of(tf.constant(new int[] {0, 1}), tf.constant(new int[] {1})),
        List.of(tf.constant(new float[] {1, 2}), tf.constant(new float[] {3})));
    assertThat(eval(repeated).floatData()).containsExactly(1, 3);
  }

  @Test
  void dynamicStitchLeavesUnnamedRowsZeroAndHandlesEmptyPieces() {
    Output ids = tf.placeholder(DType.INT32, Shape.of(-1));
    Output merged = tf.parallelDynamicStitch(List.of(ids, tf.constant(new int[] {3})),
        List.of(tf.placeholder(DType.FLOAT32, Shape.of(-1)), tf.constant(new float[] {7})));
    assertThat(merged.shape()).isEqualTo(Shape.of(-1));
    Output data0 = merged.op().input(2);
    Tensor r = eval(merged, Map.of(ids, Tensor.vector(new int[0]), data0, Tensor.vector(new float[0])));
    assertThat(r.floatData()).containsExactly(0, 0, 0, 7);
  }

  @Test
  void dynamicStitchRejectsMismatchedShapesAndNegativeIndices() {
    assertThatThrownBy(() -> tf.dynamicStitch(List.of(tf.constant(new int[] {0, 1})), List.of(tf.constant(new float[] {1}))))
        .hasMessageContaining("does not start with indices[0].shape");
    Output neg = tf.dynamicStitch(List.of(tf.placeholder(DType.INT32, Shape.of(1))), List.of(tf.constant(new float[] {1})));
    assertThatThrownBy(() -> eval(neg, Map.of(neg.op().input(0), Tensor.vector(-1))))
        .isInstanceOf(StatusException.class).hasMessageContaining("indices[0] holds -1, which is negative");
  }

  @Test
  void partitionThenStitchByOriginalPositionsIsTheIdentity() {
    Output x = tf.constant(new long[] {9, 4, 7, 1, 8, 2});
    Output p = tf.cast(tf.floorMod(x, tf.constant(3L)), DType.INT32);
    Output positions = tf.range(0, 6, 1);
    Output back = tf.dynamicStitch(tf.dynamicPartition(positions, p, 3), tf.dynamicPartition(x, p, 3));
    assertThat(eval(back)).isEqualTo(eval(x));
  }

  @Test
  void uniqueInOrderOfFirstAppearance() {
    // TF's doc: [1, 1, 2, 4, 4, 4, 7, 8, 8] -> y [1, 2, 4, 7, 8], idx [0, 0, 1, 2, 2, 2, 3, 4, 4]
    List<Tensor> r = evalAll(tf.unique(tf.constant(new long[] {1, 1, 2, 4, 4, 4, 7, 8, 8})), Map.of());
    assertThat(r.get(0)).isEqualTo(Tensor.vector(1L, 2L, 4L, 7L, 8L));
    assertThat(r.get(1)).isEqualTo(Tensor.vector(0, 0, 1, 2, 2, 2, 3, 4, 4));
    List<Tensor> s = evalAll(tf.unique(tf.constant(new int[] {5, 3, 5, 0}), DType.INT64), Map.of());
    assertThat(s.get(0)).isEqualTo(Tensor.vector(5, 3, 0));
    assertThat(s.get(1)).isEqualTo(Tensor.vector(0L, 1L, 0L, 2L));
  }

  @Test
  void uniqueOfEmptyFloatAndStringVectors() {
    List<Tensor> empty = evalAll(tf.unique(tf.constant(new long[0])), Map.of());
    assertThat(empty.get(0).shape()).isEqualTo(Shape.of(0));
    assertThat(empty.get(1).shape()).isEqualTo(Shape.of(0));
    List<Tensor> f = evalAll(tf.unique(tf.constant(new float[] {0f, -0f, 1.5f, 0f})), Map.of());
    assertThat(f.get(0).floatData()).containsExactly(0f, 1.5f);
    assertThat(f.get(1).intData()).containsExactly(0, 0, 1, 0);
    List<Tensor> strings = evalAll(tf.unique(tf.constant(Tensor.of(new String[] {"b", "a", "b"}, 3))), Map.of());
    assertThat(strings.get(0).stringData()).containsExactly("b", "a");
  }

  @Test
  void uniqueTakesOnlyVectors() {
    assertThatThrownBy(() -> tf.unique(tf.constant(new int[] {1, 2, 3, 4}, 2, 2))).hasMessageContaining("x must be a vector");
  }
}
