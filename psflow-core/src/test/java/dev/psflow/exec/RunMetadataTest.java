package dev.psflow.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import org.junit.jupiter.api.Test;

/** RunOptions with a trace level give the step's statistics, as TensorFlow's RunMetadata.step_stats. */
class RunMetadataTest {
  @Test
  void aTracedRunReportsEveryOpWithItsTimeAndOutputBytes() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output x = tf.withName("x").placeholder(DType.FLOAT32, Shape.of(-1, 3));
    Output y = tf.withName("y").matMul(x, tf.withName("w").constant(new float[] {1, 2, 3, 4, 5, 6}, 3, 2));
    try (Session s = Session.open(g)) {
      Session.Run r = s.runner().feed(x, Tensor.of(new float[] {1, 1, 1, 2, 2, 2}, 2, 3)).fetch(y)
          .setOptions(RunOptions.DEFAULTS.withTraceLevel(RunOptions.TraceLevel.FULL_TRACE)).runAndFetchMetadata();
      assertThat(r.outputs().get(0)).isEqualTo(Tensor.of(new float[] {9, 12, 18, 24}, 2, 2));
      StepStats stats = r.metadata().stepStats();
      assertThat(stats.stepId()).isPositive();
      assertThat(stats.devStats()).hasSize(1);
      StepStats.DeviceStepStats device = stats.devStats().get(0);
      assertThat(device.device()).isEqualTo(LocalSession.DEVICE);
      StepStats.NodeExecStats matMul = device.nodeStats().stream().filter(n -> n.nodeName().equals("y")).findFirst()
          .orElseThrow();
      assertThat(matMul.opType()).isEqualTo("MatMul");
      assertThat(matMul.outputBytes()).isEqualTo(2 * 2 * 4);
      assertThat(matMul.opEndRelMicros()).isNotNegative();
      assertThat(matMul.allStartMicros()).isGreaterThan(1_600_000_000_000_000L); // wall clock, µs
      assertThat(device.nodeStats()).extracting(StepStats.NodeExecStats::nodeName).contains("w");
    }
  }

  @Test
  void anUntracedRunReportsNothing() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output c = tf.constant(1f);
    try (Session s = Session.open(g)) {
      Session.Run r = s.runner().fetch(c).runAndFetchMetadata();
      assertThat(r.metadata()).isEqualTo(RunMetadata.EMPTY);
    }
  }
}
