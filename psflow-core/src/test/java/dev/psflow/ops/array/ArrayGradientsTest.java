package dev.psflow.ops.array;

import static dev.psflow.ops.math.GradientCase.uniform;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.autodiff.Gradients;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Output;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.ops.math.GradientCase;
import dev.psflow.ops.math.GraphEval;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import dev.psflow.testing.GradientChecker;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every differentiable array op against central finite differences in float64. */
class ArrayGradientsTest {
  private static final Shape ANY2 = Shape.of(-1, -1);

  static Stream<GradientCase> cases() {
    GradientCase.reseed();
    return Stream.concat(coreCases(), embeddingCases());
  }

  private static Stream<GradientCase> coreCases() {
    return Stream.of(
        GradientCase.of("Reshape", (tf, x) -> tf.reshape(x.get(0), 3, -1), uniform(-1, 1, 2, 3)),
        GradientCase.partial("Reshape [?,3]", List.of(Shape.of(-1, 3)), (tf, x) -> tf.reshape(x.get(0), -1), uniform(-1, 1, 2, 3)),
        GradientCase.of("ExpandDims", (tf, x) -> tf.expandDims(x.get(0), -1), uniform(-1, 1, 2, 3)),
        GradientCase.partial("ExpandDims of unknown rank", List.of(Shape.unknown()), (tf, x) -> tf.expandDims(x.get(0), 0), uniform(-1, 1, 2, 3)),
        GradientCase.of("Squeeze", (tf, x) -> tf.squeeze(x.get(0)), uniform(-1, 1, 2, 1, 3)),
        GradientCase.partial("Squeeze [?,1,3] axis 1", List.of(Shape.of(-1, 1, 3)), (tf, x) -> tf.squeeze(x.get(0), 1), uniform(-1, 1, 2, 1, 3)),
        GradientCase.of("Transpose", (tf, x) -> tf.transpose(x.get(0), 2, 0, 1), uniform(-1, 1, 2, 3, 2)),
        GradientCase.of("ConcatV2 with a repeated input", (tf, x) -> tf.concat(List.of(x.get(0), x.get(1), x.get(0)), 1),
            uniform(-1, 1, 2, 3), uniform(-1, 1, 2, 1)),
        GradientCase.partial("ConcatV2 [?,?] axis -1", List.of(ANY2, ANY2), (tf, x) -> tf.concat(List.of(x.get(0), x.get(1)), -1),
            uniform(-1, 1, 2, 3), uniform(-1, 1, 2, 1)),
        GradientCase.of("Slice to the end", (tf, x) -> tf.slice(x.get(0), new int[] {1, 1}, new int[] {-1, 2}), uniform(-1, 1, 3, 4)),
        GradientCase.partial("Slice [?,4]", List.of(Shape.of(-1, 4)), (tf, x) -> tf.slice(x.get(0), new int[] {1, 0}, new int[] {1, 3}),
            uniform(-1, 1, 3, 4)),
        GradientCase.of("Pad", (tf, x) -> tf.pad(x.get(0), new int[][] {{1, 0}, {2, 1}}), uniform(-1, 1, 2, 3)),
        GradientCase.partial("Pad [?,?]", List.of(ANY2), (tf, x) -> tf.pad(x.get(0), new int[][] {{0, 1}, {1, 1}}), uniform(-1, 1, 2, 3)),
        GradientCase.of("Tile", (tf, x) -> tf.tile(x.get(0), 2, 3), uniform(-1, 1, 2, 3)),
        GradientCase.partial("Tile [?,3]", List.of(Shape.of(-1, 3)), (tf, x) -> tf.tile(x.get(0), 3, 1), uniform(-1, 1, 2, 3)),
        GradientCase.of("BroadcastTo [3] -> [2,3]", (tf, x) -> tf.broadcastTo(x.get(0), 2, 3), uniform(-1, 1, 3)),
        GradientCase.of("BroadcastTo [2,1] -> [2,3]", (tf, x) -> tf.broadcastTo(x.get(0), 2, 3), uniform(-1, 1, 2, 1)),
        GradientCase.of("GatherV2 axis 0 (IndexedSlices) with repeats", (tf, x) -> tf.gather(x.get(0), tf.constant(new int[] {2, 0, 2})),
            uniform(-1, 1, 4, 3)),
        GradientCase.of("GatherV2 axis 0 with matrix indices", (tf, x) -> tf.gather(x.get(0), tf.constant(new long[] {3, 1, 3, 0}, 2, 2)),
            uniform(-1, 1, 4, 3)),
        GradientCase.partial("GatherV2 axis 0 of [?,?]", List.of(ANY2), (tf, x) -> tf.gather(x.get(0), tf.constant(new int[] {1, 1, 0}, 3, 1)),
            uniform(-1, 1, 4, 3)),
        GradientCase.of("GatherV2 axis 1", (tf, x) -> tf.gather(x.get(0), tf.constant(new int[] {3, 1, 3}), 1), uniform(-1, 1, 2, 4, 3)),
        GradientCase.partial("GatherV2 axis 1 of [?,?,?]", List.of(Shape.of(-1, -1, -1)),
            (tf, x) -> tf.gather(x.get(0), tf.constant(new int[] {3, 1, 3, 0}, 2, 2), 1), uniform(-1, 1, 2, 4, 3)),
        GradientCase.of("UnsortedSegmentSum", (tf, x) -> tf.unsortedSegmentSum(x.get(0), tf.constant(new int[] {1, 3, 1}), 4),
            uniform(-1, 1, 3, 2)),
        GradientCase.of("dense gradient of a gather used twice", (tf, x) -> tf.add(tf.gather(x.get(0), tf.constant(new int[] {1, 1})),
            tf.mul(x.get(0), tf.constant(2.0))), uniform(-1, 1, 2, 2)));
  }

  /** The ops embedding lookups are built from (issue 8). */
  private static Stream<GradientCase> embeddingCases() {
    StridedSlice.Masks none = StridedSlice.Masks.NONE;
    return Stream.of(
        GradientCase.of("DynamicPartition into 3 (one empty)", (tf, x) -> tf.concat(
            tf.dynamicPartition(x.get(0), tf.constant(new int[] {1, 0, 1, 1}), 3), 0), uniform(-1, 1, 4, 2)),
        GradientCase.of("DynamicPartition by a matrix", (tf, x) -> tf.concat(
            tf.dynamicPartition(x.get(0), tf.constant(new int[] {1, 0, 0, 1}, 2, 2), 2), 0), uniform(-1, 1, 2, 2, 3)),
        GradientCase.of("DynamicStitch", (tf, x) -> tf.dynamicStitch(
            List.of(tf.constant(new int[] {2, 0}), tf.constant(new int[] {1, 3})), List.of(x.get(0), x.get(1))),
            uniform(-1, 1, 2, 3), uniform(-1, 1, 2, 3)),
        GradientCase.of("ParallelDynamicStitch with matrix indices", (tf, x) -> tf.parallelDynamicStitch(
            List.of(tf.constant(new int[] {3, 0, 2, 1}, 2, 2)), List.of(x.get(0))), uniform(-1, 1, 2, 2, 2)),
        GradientCase.of("StridedSlice x[::2, 1:]", (tf, x) -> tf.stridedSlice(x.get(0), new int[] {0, 1}, new int[] {0, 0},
            new int[] {2, 1}, none.withBeginMask(1).withEndMask(3)), uniform(-1, 1, 3, 4)),
        GradientCase.of("StridedSlice x[-1, ::-2]", (tf, x) -> tf.stridedSlice(x.get(0), new int[] {-1, 0}, new int[] {0, 0},
            new int[] {1, -2}, none.withBeginMask(2).withEndMask(2).withShrinkAxisMask(1)), uniform(-1, 1, 3, 4)),
        GradientCase.of("StridedSlice x[..., newaxis, 1:3]", (tf, x) -> tf.stridedSlice(x.get(0), new int[] {0, 0, 1},
            new int[] {0, 0, 3}, new int[] {1, 1, 1}, none.withEllipsisMask(1).withNewAxisMask(2)), uniform(-1, 1, 2, 3, 4)),
        GradientCase.partial("StridedSlice [?,4] x[1:, 0]", List.of(Shape.of(-1, 4)), (tf, x) -> tf.stridedSlice(x.get(0),
            new int[] {1, 0}, new int[] {0, 1}, new int[] {1, 1}, none.withEndMask(1).withShrinkAxisMask(2)), uniform(-1, 1, 3, 4)),
        GradientCase.of("StridedSliceGrad (second order)", (tf, x) -> StridedSliceGrad.create(tf.scope(),
            tf.constant(new int[] {3, 4}), tf.constant(new int[] {0, 1}), tf.constant(new int[] {0, 0}),
            tf.constant(new int[] {2, 1}), x.get(0), none.withBeginMask(1).withEndMask(3)), uniform(-1, 1, 2, 3)),
        GradientCase.of("SegmentSum", (tf, x) -> tf.segmentSum(x.get(0), tf.constant(new int[] {0, 0, 2})), uniform(-1, 1, 3, 2)),
        GradientCase.of("SparseSegmentSum with a repeated index", (tf, x) -> tf.sparseSegmentSum(x.get(0),
            tf.constant(new long[] {0, 2, 2}), tf.constant(new int[] {0, 0, 1})), uniform(-1, 1, 3, 2)),
        GradientCase.of("SparseSegmentMean", (tf, x) -> tf.sparseSegmentMean(x.get(0),
            tf.constant(new int[] {0, 2, 2, 1}), tf.constant(new int[] {0, 0, 1, 3})), uniform(-1, 1, 3, 2)),
        GradientCase.of("SparseSegmentSqrtN", (tf, x) -> tf.sparseSegmentSqrtN(x.get(0),
            tf.constant(new int[] {0, 2, 2, 1}), tf.constant(new int[] {0, 0, 1, 1})), uniform(-1, 1, 3, 2)),
        GradientCase.of("SparseSegmentMeanGrad (second order)", (tf, x) -> SparseSegmentGrad.MEAN.create(tf.scope(), x.get(0),
            tf.constant(new int[] {0, 2, 2}), tf.constant(new int[] {0, 0, 1}), tf.constant(3)), uniform(-1, 1, 2, 2)),
        GradientCase.of("SparseSegmentSqrtNGrad (second order)", (tf, x) -> SparseSegmentGrad.SQRT_N.create(tf.scope(), x.get(0),
            tf.constant(new int[] {0, 2, 2}), tf.constant(new int[] {0, 0, 1}), tf.constant(3)), uniform(-1, 1, 2, 2)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void gradientMatchesFiniteDifferences(GradientCase c) {
    GradientCase.Built b = c.build();
    GradientChecker.check(b.graph(), b.y(), b.inputs());
  }

  @Test
  void everyDifferentiableArrayOpHasACase() {
    Set<String> covered = new TreeSet<>();
    cases().forEach(c -> covered.addAll(c.opTypes()));
    for (OpDef d : ArrayOps.definitions()) {
      if (d.gradient() != GradientFn.NONE) {
        assertThat(covered).as("a gradient case using %s", d.type()).contains(d.type());
      }
    }
  }

  @Test
  void gatherGivesParamsSparseRows() {
    Ops tf = Ops.create(new Graph());
    Output params = tf.placeholder(DType.FLOAT32, Shape.of(4, 2));
    Output rows = tf.gather(params, tf.constant(new int[] {3, 1, 3}));
    Output dy = tf.constant(new float[] {1, 2, 3, 4, 5, 6}, 3, 2);
    Operand g = Gradients.compute(List.of(rows), List.of(params), List.of(dy)).get(0);
    assertThat(g).isInstanceOf(IndexedSlices.class);
    IndexedSlices s = (IndexedSlices) g;
    assertThat(GraphEval.eval(s.indices()).intData()).containsExactly(3, 1, 3);
    assertThat(GraphEval.eval(s.values()).floatData()).containsExactly(1, 2, 3, 4, 5, 6);
    assertThat(GraphEval.eval(s.denseShape()).intData()).containsExactly(4, 2);
    assertThat(GraphEval.eval(s).floatData()).containsExactly(0, 0, 3, 4, 0, 0, 6, 8);
  }

  @Test
  void gatherAlongAnAxisKnownOnlyAtRunTimeHasNoGradient() {
    Ops tf = Ops.create(new Graph());
    Output params = tf.placeholder(DType.FLOAT64, Shape.of(4, 2));
    Output axis = tf.placeholder(DType.INT32, Shape.scalar());
    Output y = GatherV2.create(tf.scope(), params, tf.constant(new int[] {0}), axis);
    assertThatThrownBy(() -> Gradients.of(List.of(y), List.of(params))).hasMessageContaining("constant axis");
  }

  /** Int inputs cannot be fed to the finite-difference checker: compare with the same op on constants. */
  private static void sameGradientAsConstant(Tensor x, Tensor intArg, BiFunction<Ops, List<Output>, Output> f) {
    Ops tf = Ops.create(new Graph());
    Output in = tf.placeholder(DType.FLOAT64, x.shape());
    Output fed = tf.placeholder(intArg.dtype(), intArg.shape());
    Output yFed = f.apply(tf, List.of(in, fed));
    Output yConst = f.apply(tf, List.of(in, tf.constant(intArg)));
    Tensor dy = GradientCase.uniform(-1, 1, GraphEval.eval(yConst, Map.of(in, x)).shape().toIntArray());
    Output gFed = Gradients.of(List.of(yFed), List.of(in), List.of(tf.constant(dy))).get(0);
    Output gConst = Gradients.of(List.of(yConst), List.of(in), List.of(tf.constant(dy))).get(0);
    assertThat(GraphEval.eval(gFed, Map.of(in, x, fed, intArg)).doubleData())
        .containsExactly(GraphEval.eval(gConst, Map.of(in, x)).doubleData());
  }

  @Test
  void gradientsWithIntArgumentsKnownOnlyAtRunTime() {
    Tensor x = GradientCase.uniform(-1, 1, 2, 3, 2);
    sameGradientAsConstant(x, Tensor.vector(2, 0, 1), (tf, a) -> tf.transpose(a.get(0), a.get(1)));
    sameGradientAsConstant(x, Tensor.of(new int[] {1, 0, 0, 2, 1, 1}, 3, 2), (tf, a) -> tf.pad(a.get(0), a.get(1)));
    sameGradientAsConstant(x, Tensor.vector(1L, 1L, 0L), (tf, a) -> tf.slice(a.get(0), a.get(1), tf.constant(new long[] {1, -1, 2})));
    sameGradientAsConstant(x, Tensor.vector(2, 1, 3), (tf, a) -> tf.tile(a.get(0), a.get(1)));
    sameGradientAsConstant(x, Tensor.vector(3, 4), (tf, a) -> tf.reshape(a.get(0), a.get(1)));
    sameGradientAsConstant(x, Tensor.vector(-1), (tf, a) -> tf.reduceSum(a.get(0), a.get(1), false));
    sameGradientAsConstant(x, Tensor.scalar(1), (tf, a) -> tf.concat(List.of(a.get(0), tf.square(a.get(0))), a.get(1)));
  }
}
