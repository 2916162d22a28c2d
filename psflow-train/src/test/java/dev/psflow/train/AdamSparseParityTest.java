package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Adam on a sparse gradient against real TensorFlow: by default every row's moments decay and
 * every row with a moment moves (TF1's {@code AdamOptimizer._apply_sparse_shared}); {@code lazy}
 * updates only the rows a step uses ({@code tf.contrib.opt.LazyAdamOptimizer}).
 *
 * <p>The model: an embedding table emb [10,4] looked up (GatherV2) with 5 ids that change every
 * step, every third step repeating an id; pred = rows·w + b; loss = mean((pred − y)²); 20 steps of
 * Adam (lr 0.05) on emb, w and b, each step's loss fetched in the run that updates.
 *
 * <p>The reference numbers come from TensorFlow 2.18's runtime (TF Java 1.1.0), float32, graph mode,
 * built from raw ops by the program {@code AdamSparseReference.java} in this test's resources (not
 * compiled or run by the build): the same model, C++ gradients for the lookup's rows, w and b, then
 * TF1's sparse Adam written out with AssignVariableOp/ResourceScatterAdd on the deduplicated slices
 * ({@code TF1_*}), or LazyAdamOptimizer's gathers and scatters ({@code LAZY_*}). The same program
 * also ran ResourceApplyAdam on the densified gradient: it agreed with {@code TF1_*} to 2.3e-7
 * (losses) and 1.5e-6 (values), relative.
 */
class AdamSparseParityTest {
  private static final int VOCAB = 10;
  private static final int DIM = 4;
  private static final int N = 5;
  private static final int STEPS = 20;
  private static final double LR = 0.05;
  private static final double TOLERANCE = 1e-5;

  // ---- printed by AdamSparseReference (TensorFlow 2.18.0) ----
  static final float[] TF1_LOSSES = {
    0.63862f, 0.46971017f, 0.43012768f, 0.32747155f,
    0.773327f, 0.97252256f, 0.7536422f, 0.4573044f,
    0.5977198f, 0.5638608f, 0.7853252f, 0.3572716f,
    0.2819321f, 0.5943422f, 0.4232065f, 0.6596893f,
    0.28785142f, 0.37691134f, 0.92541236f, 0.47683263f,
  };
  static final float[] TF1_EMB = {
    -0.7969429f, 0.83631176f, 0.8537506f, 0.62120396f,
    0.6265833f, 0.4193281f, 0.4875169f, 0.24899198f,
    -0.031802192f, 0.34936503f, -0.2501807f, 0.13909517f,
    -0.14268462f, -0.33160585f, -0.3474765f, -0.54783356f,
    -0.36984935f, -0.8227213f, -0.61814755f, -1.091155f,
    0.6765236f, 0.9542953f, 0.49825925f, 0.8094957f,
    0.64179796f, 0.21214934f, 0.45728076f, 0.033414442f,
    -0.11958623f, 0.24253753f, -0.3249779f, 0.038096167f,
    -0.4035428f, -0.333423f, -0.58353114f, -0.5075945f,
    -0.28228378f, -1.223473f, -0.47492248f, 0.47696963f,
  };
  static final float[] TF1_W = {
    0.16685255f, -0.4624022f, 0.5894999f, -0.19288747f,
  };
  static final float[] TF1_B = {
    0.08611219f,
  };
  static final float[] LAZY_LOSSES = {
    0.63862f, 0.46971017f, 0.41934735f, 0.32828993f,
    0.69475496f, 1.0412984f, 0.8229643f, 0.4688553f,
    0.5395057f, 0.49451596f, 0.82304966f, 0.37549812f,
    0.33911973f, 0.51925576f, 0.43124056f, 0.60961705f,
    0.38435936f, 0.42942947f, 0.89256173f, 0.44238418f,
  };
  static final float[] LAZY_EMB = {
    -0.80387956f, 0.8228243f, 0.8719842f, 0.61453825f,
    0.5762854f, 0.50721115f, 0.4030193f, 0.31360415f,
    -0.0055535734f, 0.32499236f, -0.22300373f, 0.11361003f,
    -0.1708507f, -0.31176463f, -0.37461993f, -0.5231693f,
    -0.43227777f, -0.81405944f, -0.6557457f, -1.0502155f,
    0.7518993f, 0.92359245f, 0.5581781f, 0.7442441f,
    0.5981268f, 0.2859271f, 0.40436515f, 0.08727533f,
    -0.10593273f, 0.2312232f, -0.31321976f, 0.020721134f,
    -0.38194826f, -0.35249308f, -0.56590736f, -0.52631855f,
    -0.4518386f, -1.0486903f, -0.6488357f, 0.6499969f,
  };
  static final float[] LAZY_W = {
    0.14629531f, -0.51583034f, 0.5903609f, -0.20472679f,
  };
  static final float[] LAZY_B = {
    0.10637413f,
  };

  /** The initial embedding, as the reference program computes it. */
  private static float emb0(int i, int j) {
    return ((i * DIM + j) * 37 % 19 - 9) / 10f;
  }

  private static final float[] W0 = {0.5f, -0.3f, 0.8f, -0.6f};
  private static final float B0 = 0.1f;

  /** The ids of step t: they change every step; every third step repeats its first id. */
  private static int[] ids(int t) {
    return new int[] {3 * t % 10, (3 * t + 1) % 10, (7 * t + 4) % 10, (5 * t + 2) % 10,
        t % 3 == 0 ? 3 * t % 10 : (t + 9) % 10};
  }

  private static float[] labels(int t) {
    float[] y = new float[N];
    for (int k = 0; k < N; k++) {
      y[k] = ((k + 2 * t) % 5 - 2) * 0.5f;
    }
    return y;
  }

  /** The model and its Adam train op. */
  private record Model(Graph graph, Output idsIn, Output labelsIn, Output loss, Variable emb, Variable w, Variable b,
      AdamOptimizer opt, Operation train) {
    static Model build(AdamOptimizer opt) {
      Graph g = new Graph();
      Ops tf = Ops.create(g);
      Output ids = tf.withName("ids").placeholder(DType.INT32, Shape.of(N));
      Output y = tf.withName("y").placeholder(DType.FLOAT32, Shape.of(N, 1));
      float[] e0 = new float[VOCAB * DIM];
      for (int i = 0; i < VOCAB; i++) {
        for (int j = 0; j < DIM; j++) {
          e0[i * DIM + j] = emb0(i, j);
        }
      }
      Variable emb = tf.variable("emb", Tensor.of(e0, VOCAB, DIM), true);
      Variable w = tf.variable("w", Tensor.of(W0.clone(), DIM, 1), true);
      Variable b = tf.variable("b", Tensor.of(new float[] {B0}, 1), true);
      Output pred = tf.add(tf.matMul(tf.gather(emb, ids), w), b);
      Output loss = tf.withName("loss").reduceMean(tf.square(tf.sub(pred, y)));
      List<GradAndVar> grads = opt.computeGradients(loss);
      assertThat(grads.get(0).variable()).isSameAs(emb);
      assertThat(grads.get(0).gradient()).isInstanceOf(IndexedSlices.class);
      return new Model(g, ids, y, loss, emb, w, b, opt, opt.applyGradients(grads, null));
    }

    Session open() {
      Session s = Session.open(graph);
      s.runner().addTarget(Ops.create(graph).globalVariablesInitializer()).run();
      return s;
    }

    /** Runs step t; returns the loss it fetched (before its update). */
    float step(Session s, int t) {
      return s.runner().feed(idsIn, Tensor.of(ids(t), N)).feed(labelsIn, Tensor.of(labels(t), N, 1))
          .fetch(loss).addTarget(train).run().get(0).floatData()[0];
    }
  }

  @Test
  void adamOnASparseGradientMatchesTensorFlowsAdamOptimizer() {
    assertMatchesTensorFlow(new AdamOptimizer(LR), TF1_LOSSES, TF1_EMB, TF1_W, TF1_B);
  }

  @Test
  void lazyAdamMatchesTensorFlowsLazyAdamOptimizer() {
    assertMatchesTensorFlow(AdamOptimizer.lazy(LR), LAZY_LOSSES, LAZY_EMB, LAZY_W, LAZY_B);
  }

  @Test
  void theGradientIsDensifiedNextToTheVariableSoOnlyItsRowsCrossTheWire() {
    Model m = Model.build(new AdamOptimizer(LR));
    Operation densify = m.graph().operations().stream()
        .filter(op -> op.type().equals("UnsortedSegmentSum") && op.name().startsWith("Adam/update_emb/"))
        .findFirst().orElseThrow();
    assertThat(densify.colocationGroup()).contains("emb");
    assertThat(m.graph().operations()).filteredOn(op -> op.name().startsWith("Adam/update_emb/"))
        .extracting(Operation::type).contains("ResourceApplyAdam").doesNotContain("ResourceSparseApplyAdam");
  }

  @Test
  void byDefaultARowAStepDoesNotUseStillDecaysAndMoves() {
    RowTwo r = rowTwoAcrossStepOne(new AdamOptimizer(LR));
    // Step 0 uses row 2, step 1 does not: m ← β1·m and v ← β2·v, and the row moves on its momentum.
    for (int j = 0; j < DIM; j++) {
      assertThat(r.mAfter[j]).isCloseTo(0.9f * r.mBefore[j], offset(1e-7f));
      assertThat(r.vAfter[j]).isCloseTo(0.999f * r.vBefore[j], offset(1e-9f));
    }
    assertThat(r.embAfter).isNotEqualTo(r.embBefore);
  }

  @Test
  void lazyAdamLeavesTheRowsAStepDoesNotUseAsTheyWere() {
    RowTwo r = rowTwoAcrossStepOne(AdamOptimizer.lazy(LR));
    assertThat(r.mBefore).isNotEqualTo(new float[DIM]); // row 2 was used at step 0
    assertThat(r.mAfter).isEqualTo(r.mBefore);
    assertThat(r.vAfter).isEqualTo(r.vBefore);
    assertThat(r.embAfter).isEqualTo(r.embBefore);
  }

  private static void assertMatchesTensorFlow(AdamOptimizer opt, float[] losses, float[] emb, float[] w, float[] b) {
    Model m = Model.build(opt);
    float[] got = new float[STEPS];
    try (Session s = m.open()) {
      for (int t = 0; t < STEPS; t++) {
        got[t] = m.step(s, t);
      }
      List<Tensor> values = s.runner().fetch(m.emb()).fetch(m.w()).fetch(m.b()).run();
      assertThat(maxRelativeDifference(got, losses)).as("losses %s", Arrays.toString(got))
          .isLessThan(TOLERANCE);
      assertThat(maxRelativeDifference(values.get(0).floatData(), emb)).as("emb").isLessThan(TOLERANCE);
      assertThat(maxRelativeDifference(values.get(1).floatData(), w)).as("w").isLessThan(TOLERANCE);
      assertThat(maxRelativeDifference(values.get(2).floatData(), b)).as("b").isLessThan(TOLERANCE);
    }
  }

  /** Row 2 of emb and its slots after step 0 (which uses it) and after step 1 (which does not). */
  private record RowTwo(float[] embBefore, float[] mBefore, float[] vBefore, float[] embAfter, float[] mAfter,
      float[] vAfter) {}

  private static RowTwo rowTwoAcrossStepOne(AdamOptimizer opt) {
    assertThat(ids(0)).contains(2);
    assertThat(ids(1)).doesNotContain(2);
    Model m = Model.build(opt);
    try (Session s = m.open()) {
      m.step(s, 0);
      List<float[]> before = rowTwo(s, m);
      m.step(s, 1);
      List<float[]> after = rowTwo(s, m);
      return new RowTwo(before.get(0), before.get(1), before.get(2), after.get(0), after.get(1), after.get(2));
    }
  }

  private static List<float[]> rowTwo(Session s, Model m) {
    List<Tensor> t = s.runner().fetch(m.emb()).fetch(m.opt().slot(m.emb(), "m")).fetch(m.opt().slot(m.emb(), "v"))
        .run();
    return t.stream().map(x -> Arrays.copyOfRange(x.floatData(), 2 * DIM, 3 * DIM)).toList();
  }

  /** max |a − e| / |e| (|e| floored at 1e-6). */
  static double maxRelativeDifference(float[] actual, float[] expected) {
    assertThat(actual).hasSameSizeAs(expected);
    double max = 0;
    for (int i = 0; i < actual.length; i++) {
      max = Math.max(max, Math.abs((double) actual[i] - expected[i]) / Math.max(Math.abs(expected[i]), 1e-6));
    }
    return max;
  }
}
