package dev.psflow.ops.array;

import static dev.psflow.ops.math.GraphEval.eval;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.array.StridedSlice.Masks;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** StridedSlice as NumPy indexing (TensorFlow's semantics), each case with its Python spelling. */
class StridedSliceTest {
  private final Ops tf = Ops.create(new Graph());
  private final Output v = tf.range(0, 10, 1); // [0, 1, ..., 9]
  private final Output x = tf.reshape(tf.range(0, 24, 1), 2, 3, 4); // np.arange(24).reshape(2, 3, 4)

  private static int[] ints(int... v) {
    return v;
  }

  private Tensor slice(Output in, int[] begin, int[] end, int[] strides, Masks m) {
    Output y = tf.stridedSlice(in, begin, end, strides, m);
    Tensor t = eval(y);
    assertThat(y.shape()).as("static shape of the slice").isEqualTo(t.shape());
    return t;
  }

  @Test
  void rangesWithStridesNegativeIndicesAndClamping() {
    assertThat(slice(v, ints(1), ints(-1), ints(2), Masks.NONE).intData()).containsExactly(1, 3, 5, 7); // v[1:-1:2]
    assertThat(slice(v, ints(0), ints(0), ints(-1), Masks.NONE.withBeginMask(1).withEndMask(1)).intData())
        .containsExactly(9, 8, 7, 6, 5, 4, 3, 2, 1, 0); // v[::-1]
    assertThat(slice(v, ints(8), ints(2), ints(-2), Masks.NONE).intData()).containsExactly(8, 6, 4); // v[8:2:-2]
    assertThat(slice(v, ints(-100), ints(100), ints(1), Masks.NONE).intData()).hasSize(10); // v[-100:100]
    assertThat(slice(v, ints(5), ints(2), ints(1), Masks.NONE).shape()).isEqualTo(Shape.of(0)); // v[5:2]
    assertThat(slice(v, ints(0), ints(3), ints(1), Masks.NONE.withBeginMask(1)).intData()).containsExactly(0, 1, 2); // v[:3]
  }

  @Test
  void shrinkAxisTakesOneIndexAndDropsTheDimension() {
    Tensor row = slice(x, ints(1), ints(2), ints(1), Masks.NONE.withShrinkAxisMask(1)); // x[1]
    assertThat(row.shape()).isEqualTo(Shape.of(3, 4));
    assertThat(row.intData()).startsWith(12, 13).endsWith(23);
    Tensor col = slice(x, ints(-1, 0, 0), ints(0, 0, 1), ints(1, 1, 1),
        Masks.NONE.withBeginMask(2).withEndMask(2).withShrinkAxisMask(5)); // x[-1, :, 0]
    assertThat(col).isEqualTo(Tensor.vector(12, 16, 20));
    Tensor scalar = slice(v, ints(-2), ints(-1), ints(1), Masks.NONE.withShrinkAxisMask(1)); // v[-2]
    assertThat(scalar).isEqualTo(Tensor.scalar(8));
  }

  @Test
  void ellipsisAndNewAxis() {
    Tensor last = slice(x, ints(0, 1), ints(0, 2), ints(1, 1), Masks.NONE.withEllipsisMask(1).withShrinkAxisMask(2)); // x[..., 1]
    assertThat(last).isEqualTo(Tensor.of(new int[] {1, 5, 9, 13, 17, 21}, 2, 3));
    Tensor inserted = slice(x, ints(0, 0, 0), ints(0, 0, 2), ints(1, 1, 1),
        Masks.NONE.withBeginMask(1).withEndMask(1).withNewAxisMask(2)); // x[:, np.newaxis, 0:2]
    assertThat(inserted.shape()).isEqualTo(Shape.of(2, 1, 2, 4));
    assertThat(inserted.intData()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19);
    Tensor trailing = slice(x, ints(0, 0), ints(0, 0), ints(1, 1), Masks.NONE.withEllipsisMask(1).withNewAxisMask(2)); // x[..., np.newaxis]
    assertThat(trailing.shape()).isEqualTo(Shape.of(2, 3, 4, 1));
    Tensor middle = slice(x, ints(1, 0, 1), ints(2, 0, 3), ints(1, 1, 1),
        Masks.NONE.withEllipsisMask(2).withShrinkAxisMask(1)); // x[1, ..., 1:3]
    assertThat(middle).isEqualTo(Tensor.of(new int[] {13, 14, 17, 18, 21, 22}, 3, 2));
  }

  @Test
  void firstColumnOfSparseIndicesKnownOnlyAtRunTime() {
    Output indices = tf.placeholder(DType.INT64, Shape.of(-1, 2));
    Output col = tf.stridedSlice(indices, ints(0, 0), ints(0, 1), ints(1, 1),
        Masks.NONE.withBeginMask(1).withEndMask(1).withShrinkAxisMask(2)); // indices[:, 0]
    assertThat(col.shape()).isEqualTo(Shape.of(-1));
    assertThat(eval(col, Map.of(indices, Tensor.of(new long[] {0, 5, 0, 7, 2, 1}, 3, 2))))
        .isEqualTo(Tensor.vector(0L, 0L, 2L));
    Output b = tf.placeholder(DType.INT32, Shape.of(1));
    Output dyn = tf.stridedSlice(v, b, tf.constant(new int[] {9}), tf.constant(new int[] {3}), Masks.NONE);
    assertThat(dyn.shape()).isEqualTo(Shape.of(-1));
    assertThat(eval(dyn, Map.of(b, Tensor.vector(1))).intData()).containsExactly(1, 4, 7);
  }

  @Test
  void mistakesNameTheEntry() {
    assertThatThrownBy(() -> tf.stridedSlice(v, ints(0), ints(1), ints(0))).hasMessageContaining("strides[0] must be non-zero");
    assertThatThrownBy(() -> tf.stridedSlice(v, ints(10), ints(11), ints(1), Masks.NONE.withShrinkAxisMask(1)))
        .hasMessageContaining("slice index 10 of dimension 0 out of bounds.");
    assertThatThrownBy(() -> tf.stridedSlice(x, ints(0, 0), ints(0, 0), ints(1, 1), Masks.NONE.withEllipsisMask(3)))
        .hasMessageContaining("Multiple ellipses in slice spec not allowed");
    assertThatThrownBy(() -> tf.stridedSlice(v, ints(0, 0), ints(1, 1), ints(1, 1)))
        .hasMessageContaining("Index out of range using input dim 1; input has only 1 dims");
    assertThatThrownBy(() -> tf.stridedSlice(v, ints(0, 0), ints(1), ints(1)))
        .hasMessageContaining("Expected begin, end, and strides to be 1D equal size tensors");
    Output b = tf.placeholder(DType.INT32, Shape.of(1));
    Output y = tf.stridedSlice(v, b, tf.constant(new int[] {1}), tf.constant(new int[] {1}), Masks.NONE.withShrinkAxisMask(1));
    assertThatThrownBy(() -> eval(y, Map.of(b, Tensor.vector(-11)))).isInstanceOf(StatusException.class)
        .hasMessageContaining("slice index -11 of dimension 0 out of bounds.");
  }

  @Test
  void gradScattersDyBackIntoZeros() {
    // StridedSliceGrad(shape [2, 4], x[::1, ::-2]) with dy [[1, 2], [3, 4]]
    Output g = StridedSliceGrad.create(tf.scope(), tf.constant(new int[] {2, 4}), tf.constant(new int[] {0, 0}),
        tf.constant(new int[] {0, 0}), tf.constant(new int[] {1, -2}), tf.constant(new float[] {1, 2, 3, 4}, 2, 2),
        Masks.NONE.withBeginMask(3).withEndMask(3));
    assertThat(g.shape()).isEqualTo(Shape.of(2, 4));
    assertThat(eval(g).floatData()).containsExactly(0, 2, 0, 1, 0, 4, 0, 3);
    Output bad = StridedSliceGrad.create(tf.scope(), tf.constant(new int[] {2, 4}), tf.constant(new int[] {0, 0}),
        tf.constant(new int[] {0, 0}), tf.constant(new int[] {1, -2}), tf.placeholder(DType.FLOAT32),
        Masks.NONE.withBeginMask(3).withEndMask(3));
    assertThatThrownBy(() -> eval(bad, Map.of(bad.op().input(4), Tensor.of(new float[3], 3))))
        .hasMessageContaining("shape of dy was [3] instead of [2,2]");
  }
}
