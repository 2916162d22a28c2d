package dev.psflow.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Explanation is public API: any program's step, placed and partitioned as its master would. */
class ExplanationTest {
  private final ClusterSpec cluster = ClusterSpec.fromFlags("h:1", "h:2,h:3");

  @Test
  void aUsersStepShowsWhereEachOpRunsAndWhatCrosses() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable w = tf.withDevice("/job:ps/task:0").variable("w", tf.zeros(Shape.of(10, 4), DType.FLOAT32));
    Output x = tf.withDevice("/job:worker/task:1").withName("x").placeholder(DType.FLOAT32, Shape.of(-1, 10));
    Output y = tf.withDevice("/job:worker/task:1").withName("y").matMul(x, w);
    Operation update = tf.withDevice("/job:ps/task:0").withName("update").assignAdd(w, tf.zeros(Shape.of(10, 4), DType.FLOAT32));

    Explanation e = Explanation.of(Explanation.Step.of(g, cluster, "/job:worker/replica:0/task:0", List.of(y), List.of(update))
        .withFeeds(List.of(x), List.of(Shape.of(8, 10))).named("my step"));

    assertThat(e.partitions()).extracting(p -> Explanation.task(p.device()))
        .containsExactlyInAnyOrder("/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1");
    assertThat(e.crossings()).anySatisfy(c -> {
      assertThat(c.from()).isEqualTo("/job:ps/task:0");
      assertThat(c.to()).isEqualTo("/job:worker/task:1");
      assertThat(c.bytes()).isEqualTo(10 * 4 * 4);
    });
    assertThat(e.fedToOtherTasks()).singleElement().satisfies(c -> {
      assertThat(c.tensor()).isEqualTo("x:0");
      assertThat(c.bytes()).isEqualTo(8 * 10 * 4);
    });
    // w's value to worker 1; the update's zeros (built with no device: on the client's task) to the
    // ps; x from the client in RunGraph. y comes back in worker 1's RunGraph response, not a Recv.
    assertThat(e.bytesPerStep()).isEqualTo(10 * 4 * 4 + 10 * 4 * 4 + 8 * 10 * 4);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    e.print(new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("One step of my step, as run by /job:worker/replica:0/task:0's client")
        .contains("/job:ps/task:0 — ").contains("MatMul ×1").contains("Bytes per step:");
  }

  @Test
  void deviceFiltersAndTheDefaultTaskAreTheMastersOwn() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output c = tf.withName("c").constant(1f);
    Explanation e = Explanation.of(g, cluster, "/job:worker/replica:0/task:1", List.of(c), List.of());
    assertThat(e.partitions()).singleElement()
        .satisfies(p -> assertThat(p.device()).isEqualTo("/job:worker/replica:0/task:1/device:CPU:0"));
    assertThat(e.crossings()).isEmpty();
  }
}
