package dev.psflow.ops.math;

import static dev.psflow.ops.math.GradientCase.awayFromZero;
import static dev.psflow.ops.math.GradientCase.uniform;
import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.autodiff.Gradients;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import dev.psflow.testing.GradientChecker;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every differentiable math op against central finite differences in float64. */
class MathGradientsTest {
  private static final Shape BATCH = Shape.of(-1, 3);

  static Stream<GradientCase> cases() {
    GradientCase.reseed();
    return Stream.concat(coreCases(), embeddingCases());
  }

  /** The ops embedding lookups add (issue 8); FloorDiv is piecewise constant and has none. */
  private static Stream<GradientCase> embeddingCases() {
    return Stream.of(
        // x/y stays within (2, 3) (resp. (-3, -2)), away from the jumps of the floor.
        GradientCase.of("FloorMod [2,3] mod [3]", (tf, x) -> tf.floorMod(x.get(0), x.get(1)),
            uniform(3.1, 3.4, 2, 3), uniform(1.2, 1.4, 3)),
        GradientCase.of("FloorMod negative x mod scalar", (tf, x) -> tf.floorMod(x.get(0), x.get(1)),
            uniform(-3.4, -3.1, 2, 3), uniform(1.2, 1.4)));
  }

  private static Stream<GradientCase> coreCases() {
    return Stream.of(
        GradientCase.of("Add [2,3]+[3]", (tf, x) -> tf.add(x.get(0), x.get(1)), uniform(-1, 1, 2, 3), uniform(-1, 1, 3)),
        GradientCase.of("AddV2 scalar+[2,3]", (tf, x) -> tf.addV2(x.get(0), x.get(1)), uniform(-1, 1), uniform(-1, 1, 2, 3)),
        GradientCase.of("Sub [2,1]-[1,3]", (tf, x) -> tf.sub(x.get(0), x.get(1)), uniform(-1, 1, 2, 1), uniform(-1, 1, 1, 3)),
        GradientCase.of("Mul [2,1]*[1,3]", (tf, x) -> tf.mul(x.get(0), x.get(1)), uniform(-1, 1, 2, 1), uniform(-1, 1, 1, 3)),
        GradientCase.of("Mul [2,3]*scalar", (tf, x) -> tf.mul(x.get(0), x.get(1)), uniform(-1, 1, 2, 3), uniform(-1, 1)),
        GradientCase.of("RealDiv [2,3]/[3]", (tf, x) -> tf.div(x.get(0), x.get(1)), uniform(-1, 1, 2, 3), uniform(1, 2, 3)),
        GradientCase.of("Maximum [2,3],[3]", (tf, x) -> tf.maximum(x.get(0), x.get(1)), uniform(-1, 1, 2, 3), uniform(-1, 1, 3)),
        GradientCase.of("Minimum [2,3],scalar", (tf, x) -> tf.minimum(x.get(0), x.get(1)), uniform(-1, 1, 2, 3), uniform(-0.5, 0.5)),
        GradientCase.of("Pow [2,3]^[3]", (tf, x) -> tf.pow(x.get(0), x.get(1)), uniform(0.5, 2, 2, 3), uniform(-1, 2, 3)),
        GradientCase.of("Neg", (tf, x) -> tf.neg(x.get(0)), uniform(-1, 1, 2, 3)),
        GradientCase.of("Square", (tf, x) -> tf.square(x.get(0)), uniform(-1, 1, 2, 3)),
        GradientCase.of("Sqrt", (tf, x) -> tf.sqrt(x.get(0)), uniform(0.5, 2, 2, 3)),
        GradientCase.of("Rsqrt", (tf, x) -> tf.rsqrt(x.get(0)), uniform(0.5, 2, 2, 3)),
        GradientCase.of("Exp", (tf, x) -> tf.exp(x.get(0)), uniform(-1, 1, 2, 3)),
        GradientCase.of("Log", (tf, x) -> tf.log(x.get(0)), uniform(0.5, 2, 2, 3)),
        GradientCase.of("Abs", (tf, x) -> tf.abs(x.get(0)), awayFromZero(2, 3)),
        GradientCase.of("Sign (zero gradient)", (tf, x) -> tf.add(tf.sign(x.get(0)), x.get(0)), awayFromZero(2, 3)),
        GradientCase.of("Sigmoid", (tf, x) -> tf.sigmoid(x.get(0)), uniform(-3, 3, 2, 3)),
        GradientCase.of("Tanh", (tf, x) -> tf.tanh(x.get(0)), uniform(-2, 2, 2, 3)),
        GradientCase.of("SigmoidGrad (second order)", (tf, x) -> BinaryOp.SIGMOID_GRAD.create(tf.scope(), tf.sigmoid(x.get(0)), x.get(1)),
            uniform(-2, 2, 2, 3), uniform(-1, 1, 2, 3)),
        GradientCase.of("TanhGrad (second order)", (tf, x) -> BinaryOp.TANH_GRAD.create(tf.scope(), tf.tanh(x.get(0)), x.get(1)),
            uniform(-2, 2, 2, 3), uniform(-1, 1, 2, 3)),
        GradientCase.of("RsqrtGrad (second order)", (tf, x) -> BinaryOp.RSQRT_GRAD.create(tf.scope(), x.get(0), x.get(1)),
            uniform(0.5, 2, 2, 3), uniform(-1, 1, 2, 3)),
        GradientCase.of("SqrtGrad (second order)", (tf, x) -> BinaryOp.SQRT_GRAD.create(tf.scope(), x.get(0), x.get(1)),
            uniform(0.5, 2, 2, 3), uniform(-1, 1, 2, 3)),
        GradientCase.of("Cast float64 to float64", (tf, x) -> tf.cast(tf.square(x.get(0)), DType.FLOAT64), uniform(-1, 1, 2, 3)),
        GradientCase.of("AddN with a repeated input", (tf, x) -> tf.addN(x.get(0), x.get(1), x.get(0)), uniform(-1, 1, 2, 3), uniform(-1, 1, 2, 3)),
        GradientCase.of("ClipByValue scalar bounds", (tf, x) -> tf.clipByValue(x.get(0), x.get(1), x.get(2)),
            uniform(-1, 1, 2, 3), uniform(-0.5, -0.4), uniform(0.4, 0.5)),
        GradientCase.of("ClipByValue tensor bounds", (tf, x) -> tf.clipByValue(x.get(0), x.get(1), tf.constant(0.5)),
            uniform(-1, 1, 2, 3), uniform(-0.6, 0.1, 2, 3)),
        GradientCase.of("Select elementwise", (tf, x) -> tf.select(tf.greater(x.get(0), x.get(1)), tf.square(x.get(0)), x.get(1)),
            uniform(-1, 1, 2, 3), uniform(-1, 1, 2, 3)),
        GradientCase.of("Select rows", (tf, x) -> tf.select(tf.constant(Tensor.of(new boolean[] {true, false}, 2)), x.get(0), x.get(1)),
            uniform(-1, 1, 2, 3), uniform(-1, 1, 2, 3)),
        GradientCase.of("Sum axis 0", (tf, x) -> tf.reduceSum(x.get(0), 0), uniform(-1, 1, 2, 3)),
        GradientCase.of("Sum axis -1 keep_dims", (tf, x) -> tf.reduceSum(x.get(0), true, -1), uniform(-1, 1, 2, 3)),
        GradientCase.of("Sum all", (tf, x) -> tf.reduceSum(x.get(0)), uniform(-1, 1, 2, 3)),
        GradientCase.of("Sum axes 0,2 of rank 3", (tf, x) -> tf.reduceSum(x.get(0), 0, 2), uniform(-1, 1, 2, 3, 2)),
        GradientCase.of("Mean axis 1", (tf, x) -> tf.reduceMean(x.get(0), 1), uniform(-1, 1, 2, 3)),
        GradientCase.of("Mean all keep_dims", (tf, x) -> tf.reduceMean(x.get(0), true), uniform(-1, 1, 2, 3)),
        GradientCase.of("Max axis 1", (tf, x) -> tf.reduceMax(x.get(0), 1), uniform(-1, 1, 2, 3)),
        GradientCase.of("Max axes 0,2", (tf, x) -> tf.reduceMax(x.get(0), 0, 2), uniform(-1, 1, 2, 3, 2)),
        GradientCase.of("Min axis 0 keep_dims", (tf, x) -> tf.reduceMin(x.get(0), true, 0), uniform(-1, 1, 2, 3)),
        // Shapes known only at run time: the gradients reduce dynamically.
        GradientCase.partial("Add [?,3]+[3]", List.of(BATCH, Shape.of(3)), (tf, x) -> tf.add(x.get(0), x.get(1)),
            uniform(-1, 1, 2, 3), uniform(-1, 1, 3)),
        GradientCase.partial("Mul [?,3]*[?,3] broadcast at run time", List.of(BATCH, BATCH), (tf, x) -> tf.mul(x.get(0), x.get(1)),
            uniform(-1, 1, 2, 3), uniform(-1, 1, 1, 3)),
        GradientCase.partial("Sub of unknown ranks", List.of(Shape.unknown(), Shape.unknown()), (tf, x) -> tf.sub(x.get(0), x.get(1)),
            uniform(-1, 1, 2, 1), uniform(-1, 1, 3)),
        GradientCase.partial("Maximum [?,3],[?,1]", List.of(BATCH, Shape.of(-1, 1)), (tf, x) -> tf.maximum(x.get(0), x.get(1)),
            uniform(-1, 1, 2, 3), uniform(-1, 1, 2, 1)),
        GradientCase.partial("Sum [?,?] axis 1", List.of(Shape.of(-1, -1)), (tf, x) -> tf.reduceSum(x.get(0), 1), uniform(-1, 1, 2, 3)),
        GradientCase.partial("Sum axis 1 of unknown rank", List.of(Shape.unknown()), (tf, x) -> tf.reduceSum(x.get(0), 1), uniform(-1, 1, 2, 3)),
        GradientCase.partial("Mean [?,3] all", List.of(BATCH), (tf, x) -> tf.reduceMean(x.get(0)), uniform(-1, 1, 2, 3)),
        GradientCase.partial("Mean [?,?,?] axis 1", List.of(Shape.of(-1, -1, -1)), (tf, x) -> tf.reduceMean(x.get(0), 1), uniform(-1, 1, 2, 3, 2)),
        GradientCase.partial("Min [?,?,?] axes 0,2", List.of(Shape.of(-1, -1, -1)), (tf, x) -> tf.reduceMin(x.get(0), 0, 2), uniform(-1, 1, 2, 3, 2)),
        GradientCase.partial("ClipByValue [?,3]", List.of(BATCH, Shape.scalar(), Shape.scalar()),
            (tf, x) -> tf.clipByValue(x.get(0), x.get(1), x.get(2)), uniform(-1, 1, 2, 3), uniform(-0.5, -0.4), uniform(0.4, 0.5)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void gradientMatchesFiniteDifferences(GradientCase c) {
    GradientCase.Built b = c.build();
    GradientChecker.check(b.graph(), b.y(), b.inputs());
  }

  @Test
  void everyDifferentiableMathOpHasACase() {
    Set<String> covered = new TreeSet<>();
    cases().forEach(c -> covered.addAll(c.opTypes()));
    for (OpDef d : MathOps.definitions()) {
      if (d.gradient() != GradientFn.NONE) {
        assertThat(covered).as("a gradient case using %s", d.type()).contains(d.type());
      }
    }
  }

  @Test
  void maxSplitsTheGradientEvenlyBetweenTies() {
    Ops tf = Ops.create(new Graph());
    Output x = tf.constant(Tensor.of(new double[] {1, 3, 3, 2}, 2, 2));
    Output dx = Gradients.of(List.of(tf.reduceMax(x)), List.of(x)).get(0);
    assertThat(GraphEval.eval(dx).doubleData()).containsExactly(0, 0.5, 0.5, 0);
  }

  @Test
  void maximumRoutesTiesToTheFirstInput() {
    Ops tf = Ops.create(new Graph());
    Output x = tf.constant(Tensor.of(new double[] {1, 2}, 2));
    Output y = tf.constant(Tensor.of(new double[] {1, 3}, 2));
    List<Output> g = Gradients.of(List.of(tf.maximum(x, y)), List.of(x, y));
    assertThat(GraphEval.eval(g.get(0)).doubleData()).containsExactly(1, 0);
    assertThat(GraphEval.eval(g.get(1)).doubleData()).containsExactly(0, 1);
  }

  @Test
  void castPassesGradientsBetweenFloatTypesOnly() {
    Ops tf = Ops.create(new Graph());
    Output x = tf.placeholder(DType.FLOAT32, Shape.of(2));
    Output y = tf.cast(x, DType.FLOAT64);
    Output dx = Gradients.of(List.of(y), List.of(x), List.of(tf.constant(Tensor.of(new double[] {0.5, -2}, 2)))).get(0);
    assertThat(dx.dtype()).isEqualTo(DType.FLOAT32);
    assertThat(GraphEval.eval(dx, Map.of(x, Tensor.vector(1f, 2f))).floatData()).containsExactly(0.5f, -2f);
    Output ints = tf.placeholder(DType.FLOAT64, Shape.of(2));
    Output viaInt = tf.cast(tf.cast(ints, DType.INT32), DType.FLOAT64);
    assertThat(Gradients.of(List.of(viaInt), List.of(ints)).get(0)).isNull();
  }

  @Test
  void comparisonsAndArgMaxStopTheGradient() {
    Ops tf = Ops.create(new Graph());
    Output x = tf.placeholder(DType.FLOAT64, Shape.of(2, 3));
    Output y = tf.add(tf.cast(tf.greater(x, tf.constant(0.0)), DType.FLOAT64), tf.cast(tf.argMax(x, 0), DType.FLOAT64));
    assertThat(Gradients.of(List.of(y), List.of(x)).get(0)).isNull();
  }

  @Test
  void reductionAxesFedAtRunTimeGiveTheSameGradient() {
    Ops tf = Ops.create(new Graph());
    Output x = tf.placeholder(DType.FLOAT64, Shape.of(2, 3, 2));
    Output axes = tf.placeholder(DType.INT32, Shape.of(-1));
    Output dynamic = tf.reduceMax(x, axes, false);
    Output fixed = tf.reduceMax(x, 0, 2);
    Tensor dy = Tensor.of(new double[] {1, 2, 3}, 3);
    Output gDynamic = Gradients.of(List.of(dynamic), List.of(x), List.of(tf.constant(dy))).get(0);
    Output gFixed = Gradients.of(List.of(fixed), List.of(x), List.of(tf.constant(dy))).get(0);
    Tensor value = GradientCase.uniform(-1, 1, 2, 3, 2);
    assertThat(GraphEval.eval(gDynamic, Map.of(x, value, axes, Tensor.vector(0, 2))).doubleData())
        .containsExactly(GraphEval.eval(gFixed, Map.of(x, value)).doubleData());
  }

  @Test
  void biasGradientOfAKnownRowVectorNeedsNoRunTimeShapeLogic() {
    Ops tf = Ops.create(new Graph());
    Output x = tf.placeholder(DType.FLOAT32, Shape.of(-1, 10));
    Output b = tf.placeholder(DType.FLOAT32, Shape.of(10));
    int before = tf.graph().version();
    Output db = Gradients.of(List.of(tf.add(x, b)), List.of(b)).get(0);
    assertThat(db.shape()).isEqualTo(Shape.of(10));
    assertThat(tf.graph().operationsSince(before)).extracting(op -> op.type())
        .doesNotContain("BroadcastGradientArgs", "Shape", "Reshape");
  }
}
