package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.psflow.autodiff.Gradients;
import dev.psflow.exec.Session;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operand;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.Ops;
import dev.psflow.ops.SparseTensor;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * embeddingLookup against a gather on the full table (in the strategy's row order), max_norm, and
 * the sparse combiners against hand-computed values, in a local session.
 */
class EmbeddingsTest {
  private final Graph g = new Graph();
  private final Ops tf = Ops.create(g);

  /** Shards of {@code sizes} rows of width 3 holding distinct values: shard p row r = [100p + 10r + j]. */
  private List<Variable> shards(int... sizes) {
    List<Variable> vars = new ArrayList<>();
    for (int p = 0; p < sizes.length; p++) {
      float[] v = new float[sizes[p] * 3];
      for (int r = 0; r < sizes[p]; r++) {
        for (int j = 0; j < 3; j++) {
          v[r * 3 + j] = 100 * p + 10 * r + j;
        }
      }
      vars.add(tf.variable("shard" + p, Tensor.of(v, sizes[p], 3), true));
    }
    return vars;
  }

  private Map<Output, Tensor> runAll(List<Output> fetches) {
    try (Session s = Session.open(g)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      var r = s.runner();
      fetches.forEach(r::fetch);
      List<Tensor> values = r.run();
      Map<Output, Tensor> out = new java.util.LinkedHashMap<>();
      for (int i = 0; i < fetches.size(); i++) {
        out.put(fetches.get(i), values.get(i));
      }
      return out;
    }
  }

  private Tensor run(Output y) {
    return runAll(List.of(y)).get(y);
  }

  /** The full table with "mod" order: row i is row i / n of shard i % n. */
  private Output modTable(List<Variable> vars) {
    int n = vars.size();
    long rows = vars.stream().mapToLong(v -> v.shape().size(0)).sum();
    List<Output> byId = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      byId.add(tf.gather(vars.get(i % n), tf.constant(new int[] {i / n})));
    }
    return tf.concat(byId, 0);
  }

  @ParameterizedTest(name = "{0} shards")
  @ValueSource(ints = {1, 2, 3})
  void modEqualsAGatherOnTheTableInModOrder(int n) {
    int[] sizes = switch (n) {
      case 1 -> new int[] {11};
      case 2 -> new int[] {6, 5};
      default -> new int[] {4, 4, 3};
    };
    List<Variable> vars = shards(sizes);
    Output ids = tf.constant(new long[] {10, 0, 3, 3, 7, 5}, 2, 3);
    Output rows = Embeddings.embeddingLookup(tf, vars, ids, "mod", null);
    assertThat(rows.shape()).isEqualTo(Shape.of(2, 3, 3));
    Output expected = tf.gather(modTable(vars), ids);
    Map<Output, Tensor> r = runAll(List.of(rows, expected));
    assertThat(r.get(rows)).isEqualTo(r.get(expected));
  }

  @Test
  void divEqualsAGatherOnThePartitionedVariableWithUnevenShards() {
    // 11 rows over 3 shards: 4, 4, 3 (the first 11 % 3 = 2 shards one row longer)
    PartitionedVariable w = PartitionedVariable.create(tf, "emb", Shape.of(11, 3), DType.FLOAT32,
        (t, shape) -> t.randomUniform(shape, DType.FLOAT32, -1f, 1f, 7), VariablePartitioner.fixedSize(3));
    assertThat(w.shards()).extracting(v -> v.shape().size(0)).containsExactly(4L, 4L, 3L);
    Output ids = tf.constant(new int[] {10, 0, 3, 4, 7, 8, 3});
    Output rows = Embeddings.embeddingLookup(tf, w, ids, "div", null);
    Output expected = tf.gather(w, ids);
    Map<Output, Tensor> r = runAll(List.of(rows, expected));
    assertThat(r.get(rows)).isEqualTo(r.get(expected));
  }

  @Test
  void divWithEvenShardsAndRowsOfKnownRankOnly() {
    List<Variable> vars = shards(3, 3);
    Output ids = tf.placeholder(DType.INT64, Shape.unknown());
    Output rows = Embeddings.embeddingLookup(tf, vars, ids, "div", null);
    Output expected = tf.gather(tf.concat(List.of(vars.get(0), vars.get(1)), 0), ids);
    try (Session s = Session.open(g)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      Tensor fed = Tensor.of(new long[] {5, 2, 3, 0}, 2, 2);
      List<Tensor> r = s.runner().feed(ids, fed).fetch(rows).fetch(expected).run();
      assertThat(r.get(0)).isEqualTo(r.get(1));
      assertThat(r.get(0).shape()).isEqualTo(Shape.of(2, 2, 3));
    }
  }

  @Test
  void oneShardIsOneResourceGatherOnTheVariablesDevice() {
    Variable v = tf.withDevice("/job:ps/task:0").variable("emb", tf.constant(new float[] {1, 2, 3, 4}, 2, 2));
    Output rows = Embeddings.embeddingLookup(tf.withDevice("/job:worker/task:0"), v, tf.constant(new int[] {1, 1}));
    assertThat(rows.op().type()).isEqualTo("Identity");
    Operation gather = rows.op().input(0).op();
    assertThat(gather.type()).isEqualTo("ResourceGather");
    assertThat(gather.device()).isEqualTo("/job:ps/task:0");
    assertThat(rows.op().device()).isEqualTo("/job:worker/task:0");
  }

  @Test
  void maxNormScalesDownOnlyTheLongRows() {
    // rows of norm 5, 0 and 1 (3-4-0, zeros, 0-0-1)
    Variable a = tf.variable("a", tf.constant(new float[] {3, 4, 0, 0, 0, 0}, 2, 3));
    Variable b = tf.variable("b", tf.constant(new float[] {0, 0, 1}, 1, 3));
    Output ids = tf.constant(new int[] {0, 1, 2});
    Output clipped = Embeddings.embeddingLookup(tf, List.of(a, b), ids, "div", 2.0);
    Output single = Embeddings.embeddingLookup(tf, List.of(a), tf.constant(new int[] {0, 1}), "mod", 2.0);
    Map<Output, Tensor> r = runAll(List.of(clipped, single));
    assertThat(r.get(clipped).floatData()).containsExactly(new float[] {1.2f, 1.6f, 0, 0, 0, 0, 0, 0, 1}, within(1e-6f));
    assertThat(r.get(single).floatData()).containsExactly(new float[] {1.2f, 1.6f, 0, 0, 0, 0}, within(1e-6f));
  }

  @Test
  void idsOutsideTheTableFailTheStep() {
    List<Variable> vars = shards(2, 2);
    Output rows = Embeddings.embeddingLookup(tf, vars, tf.constant(new int[] {4}), "div", null);
    assertThatThrownBy(() -> run(rows)).isInstanceOf(StatusException.class).hasMessageContaining("is not in [0, 2)");
    assertThatThrownBy(() -> Embeddings.embeddingLookup(tf, vars, tf.constant(new int[] {0}), "range", null))
        .hasMessageContaining("Unrecognized partition strategy: range");
  }

  /** Example 0: ids [0, 2] weights [1, 3]; example 1: none; example 2: id [2] weight [2]. Table rows r = [10r, 10r+1, 10r+2] / 10. */
  private Output sparse(String combiner, boolean weighted, String strategy) {
    Variable a = tf.variable("a", tf.constant(new float[] {0, 0.1f, 0.2f, 1, 1.1f, 1.2f}, 2, 3));
    Variable b = tf.variable("b", tf.constant(new float[] {2, 2.1f, 2.2f}, 1, 3));
    long[][] indices = {{0, 0}, {0, 1}, {2, 0}};
    SparseTensor ids = SparseTensor.constant(tf, indices, Tensor.vector(0L, 2L, 2L), 3, 2);
    SparseTensor weights = weighted ? SparseTensor.constant(tf, indices, Tensor.vector(1f, 3f, 2f), 3, 2) : null;
    return Embeddings.embeddingLookupSparse(tf, List.of(a, b), ids, weights, strategy, combiner, null);
  }

  @Test
  void sparseCombinersWithoutWeights() {
    float[] sum = run(sparse("sum", false, "div")).floatData();
    assertThat(sum).containsExactly(new float[] {2, 2.2f, 2.4f, 0, 0, 0, 2, 2.1f, 2.2f}, within(1e-6f));
    float[] mean = run(sparse("mean", false, "div")).floatData();
    assertThat(mean).containsExactly(new float[] {1, 1.1f, 1.2f, 0, 0, 0, 2, 2.1f, 2.2f}, within(1e-6f));
    float[] sqrtn = run(sparse("sqrtn", false, "div")).floatData();
    float r2 = (float) Math.sqrt(2);
    assertThat(sqrtn).containsExactly(new float[] {2 / r2, 2.2f / r2, 2.4f / r2, 0, 0, 0, 2, 2.1f, 2.2f}, within(1e-6f));
  }

  @Test
  void sparseCombinersWithWeights() {
    // example 0: 1·row0 + 3·row2 = [6, 6.4, 6.8]; Σw = 4; √Σw² = √10. example 2: 2·row2 = [4, 4.2, 4.4]; Σw = 2; √Σw² = 2.
    assertThat(run(sparse("sum", true, "div")).floatData())
        .containsExactly(new float[] {6, 6.4f, 6.8f, 0, 0, 0, 4, 4.2f, 4.4f}, within(1e-5f));
    // An example without ids divides 0 by a weight sum of 0: NaN, as in TensorFlow.
    assertClose(run(sparse("mean", true, "div")), 1.5f, 1.6f, 1.7f, Float.NaN, Float.NaN, Float.NaN, 2, 2.1f, 2.2f);
    float r10 = (float) Math.sqrt(10);
    Tensor sqrtn = run(sparse("sqrtn", true, "mod"));
    // with "mod" over 2 shards id 2 is row 1 of shard 0: [1, 1.1, 1.2]; example 0 = 1·row0 + 3·[1, 1.1, 1.2]
    assertClose(sqrtn, 3 / r10, 3.4f / r10, 3.8f / r10, Float.NaN, Float.NaN, Float.NaN, 1, 1.1f, 1.2f);
  }

  private static void assertClose(Tensor t, float... expected) {
    float[] actual = t.floatData();
    assertThat(actual).hasSize(expected.length);
    for (int i = 0; i < expected.length; i++) {
      if (Float.isNaN(expected[i])) {
        assertThat(actual[i]).as("element %d", i).isNaN();
      } else {
        assertThat(actual[i]).as("element %d", i).isCloseTo(expected[i], within(1e-5f));
      }
    }
  }

  @Test
  void aSparseLookupGraphReadsTheSameFromItsGraphDef() {
    Output y = sparse("sqrtn", true, "mod");
    Operation init = tf.globalVariablesInitializer();
    Tensor expected = run(y);
    Graph copy = GraphDefs.fromBytes(GraphDefs.toBytes(g));
    assertThat(copy.requireOperation(y.op().name()).type()).isEqualTo(y.op().type());
    try (Session s = Session.open(copy)) {
      s.runner().addTarget(copy.requireOperation(init.name())).run();
      assertThat(s.runner().fetch(copy.output(y.name())).run().get(0)).isEqualTo(expected);
    }
  }

  /**
   * The gradient each shard gets through a sparse lookup (IndexedSlices, densified here) against
   * central finite differences of Σ R·y, perturbing one table element at a time.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sum", "mean", "sqrtn", "weighted sqrtn", "weighted mean", "max_norm"})
  void sparseLookupGradientsMatchFiniteDifferences(String variant) {
    double[][] init = {{0.3, -0.2, 0.5, 0.1, 0.4, -0.6}, {-0.7, 0.2, 0.9}};
    Variable a = tf.variable("a", Tensor.of(init[0].clone(), 2, 3), true);
    Variable b = tf.variable("b", Tensor.of(init[1].clone(), 1, 3), true);
    long[][] indices = {{0, 0}, {0, 1}, {0, 2}, {1, 0}};
    SparseTensor ids = SparseTensor.constant(tf, indices, Tensor.vector(0L, 2L, 1L, 2L), 2, 3);
    SparseTensor weights = variant.startsWith("weighted")
        ? SparseTensor.constant(tf, indices, Tensor.vector(0.5, 2.0, 1.5, 3.0), 2, 3) : null;
    String combiner = variant.replace("weighted ", "").replace("max_norm", "mean");
    Double maxNorm = variant.equals("max_norm") ? 0.6 : null;
    Output y = Embeddings.embeddingLookupSparse(tf, List.of(a, b), ids, weights, "mod", combiner, maxNorm);
    Output r = tf.constant(Tensor.of(new double[] {0.3, -1.1, 0.7, 0.9, 0.2, -0.4}, 2, 3));
    Output loss = tf.reduceSum(tf.mul(y, r));
    List<Variable> vars = List.of(a, b);
    List<Operand> grads = Gradients.compute(List.of(loss),
        List.of(a.handle(), b.handle()), null);
    assertThat(grads).allSatisfy(gr -> assertThat(gr).isInstanceOf(IndexedSlices.class));
    List<Output> newValues = List.of(tf.placeholder(DType.FLOAT64, a.shape()), tf.placeholder(DType.FLOAT64, b.shape()));
    List<Operation> sets = List.of(tf.assign(a, newValues.get(0)), tf.assign(b, newValues.get(1)));
    try (Session s = Session.open(g)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      for (int v = 0; v < 2; v++) {
        double[] analytic = s.runner().fetch(grads.get(v).asOutput()).run().get(0).doubleData();
        for (int j = 0; j < init[v].length; j++) {
          double[] plus = init[v].clone();
          plus[j] += 1e-6;
          double[] minus = init[v].clone();
          minus[j] -= 1e-6;
          double fp = lossWith(s, loss, sets.get(v), newValues.get(v), plus);
          double fm = lossWith(s, loss, sets.get(v), newValues.get(v), minus);
          assertThat(analytic[j]).as("d loss / d %s[%d]", vars.get(v).name(), j).isCloseTo((fp - fm) / 2e-6, within(1e-6));
        }
        lossWith(s, loss, sets.get(v), newValues.get(v), init[v]);
      }
    }
  }

  /** The loss after assigning {@code value} to one variable (through its assign fed by {@code newValue}). */
  private static double lossWith(Session s, Output loss, Operation set, Output newValue, double[] value) {
    s.runner().feed(newValue, Tensor.wrap(DType.FLOAT64, newValue.shape(), value.clone())).addTarget(set).run();
    return s.runner().fetch(loss).run().get(0).scalarDouble();
  }

  @Test
  void aBadCombinerIsNamed() {
    assertThatThrownBy(() -> sparse("max", false, "mod")).hasMessageContaining("combiner must be one of 'mean', 'sqrtn' or 'sum'");
  }
}
