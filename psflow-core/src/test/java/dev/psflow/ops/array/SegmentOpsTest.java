package dev.psflow.ops.array;

import static dev.psflow.ops.math.GraphEval.eval;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import org.junit.jupiter.api.Test;

/** SegmentSum and the sparse segment reductions (how sparse embedding lookups combine rows), by hand. */
class SegmentOpsTest {
  private final Ops tf = Ops.create(new Graph());
  // [[1, 2], [3, 4], [5, 6]]
  private final Output data = tf.constant(new float[] {1, 2, 3, 4, 5, 6}, 3, 2);

  @Test
  void segmentSumHasLastIdPlusOneRowsAndZeroForEmptySegments() {
    Output y = tf.segmentSum(data, tf.constant(new int[] {0, 0, 2}));
    assertThat(y.shape()).isEqualTo(Shape.of(-1, 2));
    assertThat(eval(y)).isEqualTo(Tensor.of(new float[] {4, 6, 0, 0, 5, 6}, 3, 2));
    assertThat(eval(tf.segmentSum(tf.constant(new long[] {5, 7}), tf.constant(new long[] {1, 1}))))
        .isEqualTo(Tensor.vector(0L, 12L));
  }

  @Test
  void segmentIdsMustBeSortedAndMatchTheRows() {
    assertThatThrownBy(() -> eval(tf.segmentSum(data, tf.constant(new int[] {1, 0, 1})))).isInstanceOf(StatusException.class)
        .hasMessageContaining("segment ids are not increasing");
    assertThatThrownBy(() -> eval(tf.segmentSum(data, tf.constant(new int[] {0, 0})))).isInstanceOf(StatusException.class)
        .hasMessageContaining("segment_ids should be the same size as dimension 0 of input");
  }

  @Test
  void sparseSegmentSumMeanAndSqrtN() {
    Output indices = tf.constant(new long[] {0, 2, 2});
    Output segments = tf.constant(new int[] {0, 0, 1});
    assertThat(eval(tf.sparseSegmentSum(data, indices, segments))).isEqualTo(Tensor.of(new float[] {6, 8, 5, 6}, 2, 2));
    assertThat(eval(tf.sparseSegmentMean(data, indices, segments))).isEqualTo(Tensor.of(new float[] {3, 4, 5, 6}, 2, 2));
    float[] sqrtN = eval(tf.sparseSegmentSqrtN(data, indices, segments)).floatData();
    float r2 = (float) Math.sqrt(2);
    assertThat(sqrtN[0]).isCloseTo(6 / r2, within(1e-6f));
    assertThat(sqrtN[1]).isCloseTo(8 / r2, within(1e-6f));
    assertThat(sqrtN[2]).isEqualTo(5);
    assertThat(sqrtN[3]).isEqualTo(6);
  }

  @Test
  void sparseSegmentRejectsAnIndexOutOfRangeAndMeanTakesFloatsOnly() {
    assertThatThrownBy(() -> eval(tf.sparseSegmentSum(data, tf.constant(new int[] {3}), tf.constant(new int[] {0}))))
        .isInstanceOf(StatusException.class).hasMessageContaining("Bad: indices[0] == 3 out of range [0, 3)");
    assertThatThrownBy(() -> tf.sparseSegmentMean(tf.constant(new int[] {1, 2}), tf.constant(new int[] {0}), tf.constant(new int[] {0})))
        .hasMessageContaining("data must be float or double");
  }

  @Test
  void meanGradDividesEachSegmentsGradientByItsCount() {
    Output g = SparseSegmentGrad.MEAN.create(tf.scope(), tf.constant(new float[] {1, 1, 2, 2}, 2, 2),
        tf.constant(new int[] {0, 2, 2}), tf.constant(new int[] {0, 0, 1}), tf.constant(3));
    assertThat(g.shape()).isEqualTo(Shape.of(3, 2));
    assertThat(eval(g)).isEqualTo(Tensor.of(new float[] {0.5f, 0.5f, 0, 0, 2.5f, 2.5f}, 3, 2));
  }
}
