package dev.psflow.ops.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.psflow.exec.Code;
import dev.psflow.exec.Runner;
import dev.psflow.exec.Session;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("nn ops compute TensorFlow's values")
class NnForwardTest {
  private final Graph g = new Graph();
  private final Ops tf = Ops.create(g);

  private Tensor run(Output fetch) {
    return run(Map.of(), List.of(fetch)).get(0);
  }

  private List<Tensor> run(Map<Output, Tensor> feeds, List<Output> fetches) {
    try (Session s = Session.open(g)) {
      Runner r = s.runner();
      feeds.forEach(r::feed);
      fetches.forEach(r::fetch);
      return r.run();
    }
  }

  private static double[] random(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] d = new double[n];
    for (int i = 0; i < n; i++) {
      d[i] = r.nextDouble(-1, 1);
    }
    return d;
  }

  /** Reference product of op(a) [m,k] and op(b) [k,n], reading a and b as stored. */
  private static double[] naive(double[] a, int ar, int ac, boolean ta, double[] b, int br, int bc, boolean tb) {
    int m = ta ? ac : ar;
    int k = ta ? ar : ac;
    int n = tb ? br : bc;
    double[] c = new double[m * n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int p = 0; p < k; p++) {
          s += (ta ? a[p * ac + i] : a[i * ac + p]) * (tb ? b[j * bc + p] : b[p * bc + j]);
        }
        c[i * n + j] = s;
      }
    }
    return c;
  }

  @ParameterizedTest(name = "transpose_a={0}, transpose_b={1}, {2}")
  @CsvSource({"false,false,FLOAT64", "false,true,FLOAT64", "true,false,FLOAT64", "true,true,FLOAT64",
      "false,false,FLOAT32", "false,true,FLOAT32", "true,false,FLOAT32", "true,true,FLOAT32"})
  void matMulMatchesNaiveProductForEveryTransposeCombination(boolean ta, boolean tb, DType type) {
    int m = 5;
    int k = 7;
    int n = 3;
    int ar = ta ? k : m;
    int ac = ta ? m : k;
    int br = tb ? n : k;
    int bc = tb ? k : n;
    double[] a = random(ar * ac, 1);
    double[] b = random(br * bc, 2);
    Output y = tf.matMul(tf.constant(cast(Tensor.of(a, ar, ac), type)), tf.constant(cast(Tensor.of(b, br, bc), type)), ta, tb);

    Tensor out = run(y);

    assertThat(out.dtype()).isEqualTo(type);
    assertThat(out.shape()).isEqualTo(Shape.of(m, n));
    assertThat(y.shape()).isEqualTo(Shape.of(m, n));
    assertThat(doubles(out)).containsExactly(naive(a, ar, ac, ta, b, br, bc, tb), within(1e-5));
  }

  @Test
  void matMulOfEmptyMatricesIsZerosOrEmpty() {
    Output a = tf.placeholder(DType.FLOAT32, Shape.of(-1, -1));
    Output b = tf.placeholder(DType.FLOAT32, Shape.of(-1, -1));
    Output y = tf.matMul(a, b);

    Tensor inner = run(Map.of(a, Tensor.of(new float[0], 2, 0), b, Tensor.of(new float[0], 0, 3)), List.of(y)).get(0);
    Tensor outer = run(Map.of(a, Tensor.of(new float[0], 0, 4), b, Tensor.of(new float[8], 4, 2)), List.of(y)).get(0);

    assertThat(inner).isEqualTo(Tensor.of(new float[6], 2, 3));
    assertThat(outer.shape()).isEqualTo(Shape.of(0, 2));
  }

  @Test
  void matMulFailsAtRunTimeOnFedShapesThatDoNotMultiply() {
    Output a = tf.placeholder(DType.FLOAT32, Shape.of(-1, -1));
    Output b = tf.placeholder(DType.FLOAT32, Shape.of(-1, -1));
    Output y = tf.matMul(a, b);

    assertThatThrownBy(() -> run(Map.of(
        a, Tensor.of(new float[6], 2, 3), b, Tensor.of(new float[8], 4, 2)), List.of(y)))
        .isInstanceOf(StatusException.class)
        .hasMessageContaining("Matrix size-incompatible: In[0]: [2,3], In[1]: [4,2]")
        .extracting(e -> ((StatusException) e).code()).isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void biasAddAddsTheBiasToEveryRowAndBiasAddGradSumsRows() {
    Output x = tf.constant(Tensor.of(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 2, 2, 3));
    Output bias = tf.constant(Tensor.vector(0.5, -1.0, 10.0));

    assertThat(doubles(run(tf.biasAdd(x, bias))))
        .containsExactly(1.5, 1, 13, 4.5, 4, 16, 7.5, 7, 19, 10.5, 10, 22);
    assertThat(doubles(run(BiasAddGrad.create(tf.scope(), x)))).containsExactly(22, 26, 30);
  }

  @Test
  void xwPlusBIsMatMulThenBiasAdd() {
    Output x = tf.constant(new float[] {1, 2, 3, 4}, 2, 2);
    Output w = tf.constant(new float[] {1, 0, 0, 1}, 2, 2);
    Output b = tf.constant(new float[] {10, 20});
    Output y = tf.xwPlusB(x, w, b);

    assertThat(y.op().type()).isEqualTo("BiasAdd");
    assertThat(y.op().input(0).op().type()).isEqualTo("MatMul");
    assertThat(run(y).floatData()).containsExactly(11, 22, 13, 24);
  }

  @Test
  void reluClampsNegativesAndItsGradientIsZeroAtZero() {
    Output x = tf.constant(new float[] {-2, 0, 3, -0.5f});
    Output dy = tf.constant(new float[] {1, 1, 1, 1});

    assertThat(run(tf.relu(x)).floatData()).containsExactly(0, 0, 3, 0);
    assertThat(run(ReluGrad.create(tf.scope(), dy, x)).floatData()).containsExactly(0, 0, 1, 0);
  }

  @Test
  void reluAndItsGradientOverVectorLanesAndATailMatchThePlainExpressionBitForBit() {
    int n = 37; // lanes of 8 (or 16) and a tail
    float[] x = new float[n];
    float[] dy = new float[n];
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < n; i++) {
      x[i] = (float) (random.nextDouble() * 2 - 1);
      dy[i] = (float) random.nextDouble();
    }
    x[3] = -0f;
    x[4] = 0f;
    x[9] = Float.NaN;
    x[10] = Float.POSITIVE_INFINITY;
    x[11] = Float.NEGATIVE_INFINITY;
    x[12] = Float.MIN_VALUE;
    x[n - 1] = Float.NaN; // in the tail
    float[] relu = run(tf.relu(tf.constant(x))).floatData();
    float[] grad = run(ReluGrad.create(tf.scope(), tf.constant(dy), tf.constant(x))).floatData();
    for (int i = 0; i < n; i++) {
      assertThat(Float.floatToRawIntBits(relu[i])).as("relu(%s)", x[i])
          .isEqualTo(Float.floatToRawIntBits(x[i] > 0 ? x[i] : 0f));
      assertThat(Float.floatToRawIntBits(grad[i])).as("ReluGrad at %s", x[i])
          .isEqualTo(Float.floatToRawIntBits(x[i] > 0 ? dy[i] : 0f));
    }
  }

  @Test
  void softmaxRowsSumToOneAndStayFiniteForLargeLogits() {
    Output logits = tf.constant(new float[] {1000, 1001, 1002, -1000, 0, 1000}, 2, 3);

    float[] p = run(tf.softmax(logits)).floatData();

    assertThat(p).doesNotContain(Float.NaN);
    assertThat(p[0] + p[1] + p[2]).isCloseTo(1f, within(1e-6f));
    assertThat(p[3] + p[4] + p[5]).isCloseTo(1f, within(1e-6f));
    double z = 1 + Math.exp(1) + Math.exp(2);
    assertThat(p[0]).isCloseTo((float) (1 / z), within(1e-6f));
    assertThat(p[2]).isCloseTo((float) (Math.exp(2) / z), within(1e-6f));
    assertThat(p[5]).isCloseTo(1f, within(1e-6f));
  }

  @Test
  void logSoftmaxIsStableLogOfSoftmax() {
    Output logits = tf.constant(Tensor.of(new double[] {1000, 1001, 1002}, 1, 3));

    double[] y = run(tf.logSoftmax(logits)).doubleData();

    double lse = 2 + Math.log(Math.exp(-2) + Math.exp(-1) + 1);
    assertThat(y).containsExactly(new double[] {-lse, 1 - lse, 2 - lse}, within(1e-12));
  }

  @Test
  void softmaxCrossEntropyMatchesHandComputation() {
    Output logits = tf.constant(Tensor.of(new double[] {1, 2, 3, 0, 0, 1000}, 2, 3));
    Output labels = tf.constant(Tensor.of(new double[] {0, 0, 1, 0.5, 0.5, 0}, 2, 3));
    var op = SoftmaxCrossEntropyWithLogits.create(tf.scope(), logits, labels);

    List<Tensor> out = run(Map.of(), List.of(op.output(0), op.output(1)));

    double lse = Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3));
    // Row 2: log_softmax = [-1000, -1000, 0]; half the mass on each of the first two classes.
    assertThat(out.get(0).doubleData()).containsExactly(new double[] {lse - 3, 1000}, within(1e-9));
    double[] bp = out.get(1).doubleData();
    assertThat(bp[0]).isCloseTo(Math.exp(1 - lse), within(1e-12));
    assertThat(bp[2]).isCloseTo(Math.exp(3 - lse) - 1, within(1e-12));
    assertThat(bp[3]).isCloseTo(-0.5, within(1e-12));
    assertThat(bp[5]).isCloseTo(1, within(1e-12));
    assertThat(tf.softmaxCrossEntropyWithLogits(labels, logits).shape()).isEqualTo(Shape.of(2));
  }

  @Test
  void sparseSoftmaxCrossEntropyPicksTheLabelledClass() {
    Output logits = tf.constant(new float[] {1, 2, 3, 3, 2, 1}, 2, 3);
    var op = SparseSoftmaxCrossEntropyWithLogits.create(tf.scope(), logits, tf.constant(new long[] {2, 0}));

    List<Tensor> out = run(Map.of(), List.of(op.output(0), op.output(1)));

    double lse = Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3));
    assertThat(out.get(0).floatData()).containsExactly(new float[] {(float) (lse - 3), (float) (lse - 3)}, within(1e-6f));
    assertThat(out.get(1).floatData()[2]).isCloseTo((float) (Math.exp(3 - lse) - 1), within(1e-6f));
    assertThat(out.get(1).floatData()[4]).isCloseTo((float) Math.exp(2 - lse), within(1e-6f));
  }

  @Test
  void sparseSoftmaxCrossEntropyRejectsAnOutOfRangeLabelNamingItAndTheRange() {
    Output logits = tf.constant(new float[] {1, 2, 3, 3, 2, 1}, 2, 3);
    Output loss = tf.sparseSoftmaxCrossEntropyWithLogits(tf.constant(new int[] {1, 3}), logits);

    assertThatThrownBy(() -> run(loss))
        .isInstanceOf(StatusException.class)
        .hasMessageContaining("label value of 3")
        .hasMessageContaining("[0, 3)")
        .extracting(e -> ((StatusException) e).code()).isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void l2LossIsHalfTheSumOfSquares() {
    assertThat(run(tf.l2Loss(tf.constant(new float[] {1, 2, 3}))).floatData()).containsExactly(7f);
    assertThat(run(tf.l2Loss(tf.constant(Tensor.of(new double[] {3, 4}, 2, 1)))).doubleData())
        .containsExactly(12.5);
  }

  static Tensor cast(Tensor t, DType type) {
    if (type == DType.FLOAT64) {
      return t;
    }
    double[] d = t.doubleData();
    float[] f = new float[d.length];
    for (int i = 0; i < d.length; i++) {
      f[i] = (float) d[i];
    }
    return Tensor.wrap(DType.FLOAT32, t.shape(), f);
  }

  static double[] doubles(Tensor t) {
    double[] d = new double[t.size()];
    for (int i = 0; i < d.length; i++) {
      d[i] = t.getDouble(i);
    }
    return d;
  }
}
