package dev.psflow.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Which thread runs two expensive ops that become ready together: the stepping thread runs both
 * when their inputs are small (a handoff would cost more than the op), and hands one to another
 * core when their inputs are large.
 */
class ExecutorHandoffTest {
  /** Where each op ran, by op name. */
  private static final Map<String, String> RAN_ON = new ConcurrentHashMap<>();

  /** An expensive identity that notes the thread it ran on. */
  enum NoteThread implements OpDef {
    DEF;

    @Override
    public String type() {
      return "TestNoteThread";
    }

    @Override
    public List<TensorSpec> outputs(Operation op) {
      return List.of(TensorSpec.of(op.input(0).dtype(), op.input(0).shape()));
    }

    @Override
    public Kernel kernel(Operation op) {
      return ctx -> {
        RAN_ON.put(op.name(), Thread.currentThread().getName());
        ctx.setOutput(0, ctx.input(0));
      };
    }

    @Override
    public boolean isExpensive() {
      return true;
    }
  }

  private final Graph g = new Graph();
  private final Ops tf = Ops.create(g);

  private List<String> threadsOfTwoOpsReadyTogether(int inputElements) {
    RAN_ON.clear();
    Output x = tf.constant(new float[inputElements]);
    Output a = g.opBuilder(NoteThread.DEF, "a").addInput(x).build().output(0);
    Output b = g.opBuilder(NoteThread.DEF, "b").addInput(x).build().output(0);
    try (Session s = Session.open(g)) {
      s.runner().fetch(a).fetch(b).run();
    }
    return List.of(RAN_ON.get("a"), RAN_ON.get("b"));
  }

  @Test
  void expensiveOpsWithSmallInputsRunOnTheSteppingThread() {
    String stepping = Thread.currentThread().getName();
    assertThat(threadsOfTwoOpsReadyTogether((int) ExecutorStep.HANDOFF_MIN_ELEMENTS - 1))
        .containsExactly(stepping, stepping);
  }

  @Test
  void aSecondExpensiveOpWithLargeInputsGoesToAnotherCore() {
    assertThat(threadsOfTwoOpsReadyTogether((int) ExecutorStep.HANDOFF_MIN_ELEMENTS))
        .filteredOn(t -> t.startsWith("psflow-compute-"))
        .hasSize(1);
  }
}
