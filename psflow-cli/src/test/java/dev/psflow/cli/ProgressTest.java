package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The live progress line sits below a program's own lines on a terminal; elsewhere lines pass through. */
class ProgressTest {
  @Test
  void onATerminalLinesAppearAboveTheLiveLineWhichIsDrawnAgainBelowThem() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Progress p = new Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), 10, true, "global step");
    PrintStream lines = p.above();
    p.step(1, 2.5); // the baseline: nothing drawn
    lines.println("Worker 0: training step 1 done (global step: 1)");
    Thread.sleep(120);
    p.step(10, 0.5);
    lines.println("Worker 0: training step 2 done (global step: 10)");
    p.finish();
    lines.println("Training ends");
    String out = bytes.toString(StandardCharsets.UTF_8);
    String live = "global step 10/10  loss 0.5000";
    assertThat(out).startsWith("Worker 0: training step 1 done (global step: 1)\n\r" + live)
        // the live line is erased before the next line and drawn again after it
        .contains("\033[K\r\033[KWorker 0: training step 2 done (global step: 10)\n" + live)
        .endsWith("\033[K\nTraining ends\n");
  }

  @Test
  void withoutATerminalTheLinesPassThroughAndAPlainProgressLineComesAtTheEnd() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Progress p = new Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), 2, false, "global step");
    PrintStream lines = p.above();
    p.step(1, 1.0);
    lines.println("Worker 0: training step 1 done (global step: 1)");
    p.step(2, 0.5);
    lines.println("Worker 0: training step 2 done (global step: 2)");
    p.finish();
    assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList()).hasSize(3)
        .startsWith("Worker 0: training step 1 done (global step: 1)")
        .endsWith("Worker 0: training step 2 done (global step: 2)")
        .anyMatch(l -> l.startsWith("global step 2/2  loss 0.5000  ") && !l.contains("\033"));
  }

  @Test
  void linesForStandardErrorGoThereWhileTheLiveLineIsErasedAndDrawnAgainOnItsOwnStream() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Progress p = new Progress(new PrintStream(out, true, StandardCharsets.UTF_8), 10, true, "global step");
    p.step(1, 2.5);
    Thread.sleep(120);
    p.step(5, 1.5);
    p.above(new PrintStream(err, true, StandardCharsets.UTF_8)).println("INFO CheckpointSaverHook - Saving checkpoints");
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("INFO CheckpointSaverHook - Saving checkpoints\n");
    String live = out.toString(StandardCharsets.UTF_8);
    assertThat(live).startsWith("\rglobal step 5/10  loss 1.5000").contains("\033[K\r\033[Kglobal step 5/10")
        .endsWith("\033[K");
  }
}
