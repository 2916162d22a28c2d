package dev.psflow.bench.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading back what psflow, the TensorFlow reference and /proc print. */
class LogLinesTest {
  @Test
  void psflowLocalStepsPerSecIsItsClosingLine() {
    List<String> out = List.of("step 300/300  loss 13.4127  248.8 steps/sec  ETA 0s", "test accuracy = 0.9534",
        "training steps/sec = 717.8");
    assertThat(LogLines.lastNumber(out, LogLines.PSFLOW_LOCAL_STEPS_PER_SEC)).hasValue(717.8);
  }

  @Test
  void tensorflowLocalStepsPerSecIsTheAfterWarmupFieldOfItsResultLine() {
    List<String> out = List.of("Training elapsed time: 0.512 s",
        "RESULT mode=local steps=300 global_step=300 train_time_s=0.5120 steps_per_sec_all=585.92 "
            + "steps_per_sec_after_warmup=755.97 warmup_steps=50 val_xent=674.6770",
        "RESULT cpu process_cpu_s=2.670");
    assertThat(LogLines.lastNumber(out, LogLines.TENSORFLOW_LOCAL_STEPS_PER_SEC)).hasValue(755.97);
    assertThat(LogLines.lastNumber(out, LogLines.PSFLOW_LOCAL_STEPS_PER_SEC)).isEmpty();
  }

  @Test
  void bothSystemsWorkersPrintTheOriginalsElapsedTimeLine() {
    assertThat(LogLines.lastNumber(List.of("Training ends @ 1795551372.763000", "Training elapsed time: 11.517000 s"),
        LogLines.TRAINING_ELAPSED)).hasValue(11.517);
    assertThat(LogLines.lastNumber(List.of("Training elapsed time: 7.250 s"), LogLines.TRAINING_ELAPSED))
        .hasValue(7.25);
    assertThat(LogLines.lastNumber(List.of("1.0: Worker 0: training step 3 done (global step: 5)"),
        LogLines.TRAINING_ELAPSED)).isEmpty();
  }

  @Test
  void localClustersRelayedLinesKeepTheirTasksPrefix() {
    List<String> out = List.of("[worker1] Training elapsed time: 4.823000 s", "[ps0] job name = ps",
        "[worker0] Worker 0: wire during training: sent 100 bytes, received 200 bytes in 9 messages, 989 local steps, "
            + "global steps 0..2002",
        "[worker0] Training elapsed time: 4.958000 s",
        "[worker1] Worker 1: wire during training: sent 10 bytes, received 20 bytes in 9 messages, 1013 local steps, "
            + "global steps 6..2000");
    assertThat(LogLines.numbers(out, LogLines.TRAINING_ELAPSED)).containsExactly(4.823, 4.958);
    assertThat(LogLines.wires(out)).containsExactly(new LogLines.Wire(300, 989), new LogLines.Wire(30, 1013));
    assertThat(LogLines.numbers(List.of("[worker0] Worker 0: Training elapsed time: 1 s"), LogLines.TRAINING_ELAPSED))
        .as("only the line itself, after at most the task's prefix").isEmpty();
  }

  @Test
  void psflowWireLineGivesBytesBothWaysAndLocalSteps() {
    LogLines.Wire w = LogLines.wire(List.of("Worker 0: wire during training: sent 72325998 bytes, received "
        + "72334256 bytes in 9089 messages, 227 local steps, global steps 0..300"));
    assertThat(w).isEqualTo(new LogLines.Wire(72325998L + 72334256L, 227));
    assertThat(LogLines.wire(List.of("test accuracy = 0.95"))).isNull();
  }

  @Test
  void childrenCpuIsCutimePlusCstimeCountedAfterTheCommandName() {
    String stat = "27887 (sh) R 27842 27840 15225 0 -1 4194304 125 347781 0 0 0 0 342 95 20 0 1 0 896335";
    assertThat(LogLines.childrenCpuSeconds(stat, 100)).isEqualTo(4.37);
    String oddName = "42 (a (b) c) S 1 1 1 0 -1 0 0 0 0 0 7 8 100 50 20 0 1 0 1";
    assertThat(LogLines.childrenCpuSeconds(oddName, 100)).isEqualTo(1.5);
    assertThatThrownBy(() -> LogLines.childrenCpuSeconds("garbage", 100)).hasMessageContaining("stat");
  }

  @Test
  void peakRssIsVmHwmInBytes() {
    String status = "Name:\tjava\nVmPeak:\t 4000000 kB\nVmHWM:\t 1283576 kB\nVmRSS:\t 1200000 kB\n";
    assertThat(LogLines.peakRssBytes(status)).isEqualTo(1283576L * 1024);
    assertThat(LogLines.peakRssBytes("Name:\tkthreadd\n")).isEqualTo(-1);
  }
}
