package dev.psflow.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.autodiff.Gradients;
import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.Tensor;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * With batched pulls (the default), a step's pulls from one task go in one RecvTensors call (the
 * worker's of two variables, the ps's of their two gradients), and training gives exactly what it
 * gives with one RecvTensor call a tensor.
 */
class BatchedPullsTest {
  @AfterEach
  void restoreDefault() {
    StepRendezvous.batchPulls = StepRendezvous.batchPullsProperty();
  }

  @Test
  void trainingWithBatchedPullsGivesWhatSeparatePullsGive() {
    StepRendezvous.batchPulls = false;
    float[] separate = train();
    StepRendezvous.batchPulls = true;
    float[] batched = train();
    assertThat(batched).containsExactly(separate);
    assertThat(batched[0]).as("training moved w").isNotEqualTo(0f);
  }

  /** Five gradient-descent steps of y = w·x + b, w and b on the ps; returns w then b. */
  private static float[] train() {
    ClusterSpec cluster = FreePorts.localCluster(1, 1);
    Server ps = Server.create(cluster, "ps", 0);
    Server worker = Server.create(cluster, "worker", 0);
    try {
      Graph g = new Graph();
      Ops tf = Ops.create(g);
      Ops onPs = tf.withDevice("/job:ps/task:0");
      Ops onWorker = tf.withDevice("/job:worker/task:0");
      Variable w = onPs.variable("w", onPs.constant(new float[] {0, 0}));
      Variable b = onPs.variable("b", onPs.constant(new float[] {0}));
      Output x = onWorker.constant(Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 3, 2));
      Output y = onWorker.constant(Tensor.vector(5f, 11f, 17f));
      Output wv = onWorker.identity(w.value());
      Output bv = onWorker.identity(b.value());
      Output predicted = onWorker.add(onWorker.reduceSum(onWorker.mul(x, wv), 1), bv);
      Output loss = onWorker.reduceSum(onWorker.square(onWorker.sub(predicted, y)));
      List<Output> grads = Gradients.of(List.of(loss), List.of(wv, bv));
      Operation trainW = onPs.resourceApplyGradientDescent(w, onPs.constant(0.01f), grads.get(0), false);
      Operation trainB = onPs.resourceApplyGradientDescent(b, onPs.constant(0.01f), grads.get(1), false);
      try (Session s = Session.open(g, worker.target())) {
        s.runner().addTarget(tf.globalVariablesInitializer()).run();
        for (int i = 0; i < 5; i++) {
          s.runner().addTarget(trainW).addTarget(trainB).run();
        }
        List<Tensor> out = s.runner().fetch(w.value()).fetch(b.value()).run();
        float[] wb = out.get(0).floatData();
        return new float[] {wb[0], wb[1], out.get(1).floatData()[0]};
      }
    } finally {
      worker.stop();
      ps.stop();
    }
  }
}
