package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.exec.StepStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --trace_steps=A:B traces the runs that make global steps A..B and writes them once past B. */
class TracedStepsTest {
  private static StepStats step(long id) {
    return new StepStats(id, List.of(new StepStats.DeviceStepStats("/job:worker/replica:0/task:0/device:CPU:0",
        List.of(new StepStats.NodeExecStats("m", "MatMul", 10, 5, 0)))));
  }

  @Test
  void tracesTheRunsStartedAfterSeeingAMinusOneToBMinusOneAndWritesPastB(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("t.json");
    TracedSteps t = TracedSteps.parse("100:105", file, "/job:worker/task:0");
    assertThat(t.covers(-1)).isFalse();
    assertThat(t.covers(98)).isFalse();
    assertThat(t.covers(99)).isTrue();
    assertThat(t.covers(104)).isTrue();
    assertThat(t.covers(105)).isFalse();
    t.add(step(1), 100);
    assertThat(t.afterRun(100, false)).isNull();
    t.add(step(2), 105);
    assertThat(t.afterRun(105, false)).isEqualTo("added the trace of 2 run(s) in global steps 100..105 to " + file
        + " (open it in ui.perfetto.dev or chrome://tracing)");
    assertThat(Files.readString(file)).contains("\"step_id\":1,\"global_step\":100", "\"step_id\":2,\"global_step\":105");
    assertThat(t.covers(101)).as("written: no more tracing").isFalse();
    assertThat(t.afterRun(106, true)).isNull();
  }

  @Test
  void trainingThatEndsInsideTheRangeStillWritesIt(@TempDir Path dir) {
    TracedSteps t = TracedSteps.parse("10:20", dir.resolve("t.json"), "/job:worker/task:1");
    t.add(step(3), 12);
    assertThat(t.afterRun(12, true)).startsWith("added the trace of 1 run(s)");
    assertThat(dir.resolve("t.json")).exists();
  }

  @Test
  void badRangesAreRejectedNamingTheFlag() {
    assertThatThrownBy(() -> TracedSteps.parse("100-105", Path.of("t.json"), "w"))
        .hasMessage("--trace_steps must be A:B (global steps, e.g. 100:105), got '100-105'");
    assertThatThrownBy(() -> TracedSteps.parse("9:3", Path.of("t.json"), "w"))
        .hasMessage("--trace_steps must be A:B with 0 <= A <= B, got 9:3");
  }
}
