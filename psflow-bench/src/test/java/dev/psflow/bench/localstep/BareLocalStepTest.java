package dev.psflow.bench.localstep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.psflow.examples.MnistModel;
import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.Tensor;
import dev.psflow.train.AdamOptimizer;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The floor does the work of psflow's local step, not less: from the same weights and on the same
 * batches, its loss and its updated variables are psflow's graph's (MnistModel, AdamOptimizer).
 */
class BareLocalStepTest {
  private static final int BATCH = 100;
  private static final int HIDDEN = 20;

  @Test
  void threeStepsGiveTheLossesAndVariablesOfPsflowsGraph() {
    Graph g = new Graph();
    g.setSeed(3);
    Ops tf = Ops.create(g);
    MnistModel m = MnistModel.build(tf, HIDDEN);
    Operation train = new AdamOptimizer(0.01).minimize(m.crossEntropy(), m.globalStep());
    List<Variable> vars = List.of(m.hidW(), m.hidB(), m.smW(), m.smB());
    BareLocalStep floor = new BareLocalStep(BATCH, HIDDEN, 0.01f, 1);
    SplittableRandom random = new SplittableRandom(5);
    try (Session s = Session.open(g)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      List<float[]> start = values(s, vars);
      copy(start, floor);
      for (int step = 0; step < 3; step++) {
        float[] x = new float[BATCH * BareLocalStep.FEATURES];
        float[] labels = new float[BATCH * BareLocalStep.CLASSES];
        for (int i = 0; i < x.length; i++) {
          x[i] = random.nextInt(256) / 255f;
        }
        for (int r = 0; r < BATCH; r++) {
          labels[r * BareLocalStep.CLASSES + random.nextInt(BareLocalStep.CLASSES)] = 1f;
        }
        double graphLoss = s.runner().feed(m.x(), Tensor.of(x, BATCH, BareLocalStep.FEATURES))
            .feed(m.labels(), Tensor.of(labels, BATCH, BareLocalStep.CLASSES))
            .addTarget(train).fetch(m.crossEntropy()).run().get(0).scalarDouble();
        double floorLoss = floor.step(x, labels);
        assertThat(floorLoss).as("loss of step %d", step).isCloseTo(graphLoss, within(1e-3 * Math.abs(graphLoss)));
      }
      List<float[]> after = values(s, vars);
      float[][] floors = {floor.w1, floor.b1, floor.w2, floor.b2};
      for (int i = 0; i < floors.length; i++) {
        assertThat(floors[i]).as("%s after 3 steps", vars.get(i).name()).containsExactly(after.get(i), within(1e-5f));
        assertThat(floors[i]).as("%s moved", vars.get(i).name()).isNotEqualTo(start.get(i));
      }
    }
  }

  private static List<float[]> values(Session s, List<Variable> vars) {
    var r = s.runner();
    vars.forEach(v -> r.fetch(v.value()));
    return r.run().stream().map(t -> t.floatData().clone()).toList();
  }

  private static void copy(List<float[]> values, BareLocalStep floor) {
    float[][] floors = {floor.w1, floor.b1, floor.w2, floor.b2};
    for (int i = 0; i < floors.length; i++) {
      assertThat(values.get(i)).hasSameSizeAs(floors[i]);
      System.arraycopy(values.get(i), 0, floors[i], 0, floors[i].length);
    }
  }
}
