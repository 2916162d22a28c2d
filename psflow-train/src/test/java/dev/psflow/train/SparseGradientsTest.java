package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An embedding of [5, 3] looked up with GatherV2 at rows [1, 3, 1]: the gradient stays sparse, the
 * sparse update equals the dense update of the densified gradient on every row, and rows 0, 2 and 4
 * of the variable (and of its slots) are not touched by the sparse path.
 */
class SparseGradientsTest {
  private static final double[] E0 = {
    0.1, 0.2, 0.3,
    0.4, -0.5, 0.6,
    0.7, 0.8, 0.9,
    -1.0, 1.1, 1.2,
    1.3, 1.4, -1.5,
  };
  private static final int[] UNTOUCHED_ROWS = {0, 2, 4};

  static Stream<Arguments> optimizers() {
    return Stream.of(
        Arguments.of("GradientDescent", (Supplier<Optimizer>) () -> new GradientDescentOptimizer(0.1)),
        Arguments.of("Momentum", (Supplier<Optimizer>) () -> new MomentumOptimizer(0.1, 0.9, true)),
        Arguments.of("Adagrad", (Supplier<Optimizer>) () -> new AdagradOptimizer(0.3)),
        Arguments.of("Adam", (Supplier<Optimizer>) () -> new AdamOptimizer(0.1)),
        Arguments.of("LazyAdam", (Supplier<Optimizer>) () -> AdamOptimizer.lazy(0.1)),
        Arguments.of("RMSProp", (Supplier<Optimizer>) () -> new RMSPropOptimizer(0.01, 0.9, 0.5, 1e-10)));
  }

  /** ½·Σ rows², rows = emb gathered at [1, 3, 1], so row 1's gradient is counted twice. */
  private static Output loss(Ops tf, Variable emb) {
    Output rows = tf.gather(emb, tf.constant(new int[] {1, 3, 1}));
    return tf.mul(tf.constant(0.5), tf.reduceSum(tf.mul(rows, rows), 0, 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("optimizers")
  void sparseAndDenseAgreeAndTheSparsePathLeavesOtherRowsAlone(String name, Supplier<Optimizer> make) {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable sparse = tf.variable("emb_sparse", Tensor.of(E0.clone(), 5, 3), true);
    Variable dense = tf.variable("emb_dense", Tensor.of(E0.clone(), 5, 3), true);

    Optimizer sparseOpt = make.get();
    List<GradAndVar> sparseGrads = sparseOpt.computeGradients(loss(tf, sparse), List.of(sparse));
    assertThat(sparseGrads.get(0).gradient()).isInstanceOf(IndexedSlices.class);
    Operation sparseTrain = sparseOpt.applyGradients(sparseGrads, null);

    Optimizer denseOpt = make.get();
    IndexedSlices slices = (IndexedSlices) denseOpt.computeGradients(loss(tf, dense), List.of(dense)).get(0).gradient();
    Operation denseTrain = denseOpt.applyGradients(List.of(new GradAndVar(slices.asOutput(), dense)), null);

    try (Session s = Session.open(g)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      List<Tensor> initialSlots = slotValues(s, sparseOpt, sparse);
      for (int step = 0; step < 2; step++) {
        s.runner().addTarget(sparseTrain).addTarget(denseTrain).run();
      }
      Tensor sv = s.runner().fetch(sparse).run().get(0);
      Tensor dv = s.runner().fetch(dense).run().get(0);
      for (int i = 0; i < 15; i++) {
        assertThat(sv.getDouble(i)).as("element %d", i).isCloseTo(dv.getDouble(i), within(1e-12));
      }
      for (int row : UNTOUCHED_ROWS) {
        for (int j = 0; j < 3; j++) {
          assertThat(sv.getDouble(row * 3 + j)).as("row %d", row).isEqualTo(E0[row * 3 + j]);
        }
      }
      assertThat(sv.getDouble(3)).isNotEqualTo(E0[3]);
      List<Tensor> slotsAfter = slotValues(s, sparseOpt, sparse);
      for (int k = 0; k < slotsAfter.size(); k++) {
        for (int row : UNTOUCHED_ROWS) {
          for (int j = 0; j < 3; j++) {
            assertThat(slotsAfter.get(k).getDouble(row * 3 + j))
                .as("slot %s row %d", sparseOpt.slotNames().get(k), row)
                .isEqualTo(initialSlots.get(k).getDouble(row * 3 + j));
          }
        }
      }
    }
  }

  private static List<Tensor> slotValues(Session s, Optimizer opt, Variable var) {
    var runner = s.runner();
    for (String slot : opt.slotNames()) {
      runner.fetch(opt.slot(var, slot));
    }
    return opt.slotNames().isEmpty() ? List.of() : runner.run();
  }
}
