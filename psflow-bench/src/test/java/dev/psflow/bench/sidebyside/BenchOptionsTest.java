package dev.psflow.bench.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** bin/bench's options: the defaults, and one clear line for a mistake. */
class BenchOptionsTest {
  private static final Path DATA = Path.of("datasets/mnist");

  @Test
  void defaultsAreThreeAlternationsOf2000StepsOfEveryWorkloadWithScaling() {
    BenchOptions o = BenchOptions.parse(new String[0], DATA);
    assertThat(o.trainSteps()).isEqualTo(2000);
    assertThat(o.runs()).isEqualTo(3);
    assertThat(o.workloads()).containsExactly(Workload.LOCAL, Workload.ASYNC, Workload.SYNC, Workload.MAIN);
    assertThat(o.scaling()).isTrue();
    assertThat(o.tensorflow()).isNull();
    assertThat(o.dataDir()).isEqualTo(DATA);
    assertThat(o.insecure()).as("psflow's tasks speak TLS unless told").isFalse();
  }

  @Test
  void readsEveryOption() {
    BenchOptions o = BenchOptions.parse(new String[] {"--train_steps=300", "--runs=1", "--workloads=sync,local,main",
        "--tensorflow=../tf", "--data_dir=/d", "--no-scaling", "--timeout_s=60", "--psflow_task_flags=--x=1 --y=2", "--insecure"},
        DATA);
    assertThat(o.trainSteps()).isEqualTo(300);
    assertThat(o.runs()).isEqualTo(1);
    assertThat(o.workloads()).containsExactly(Workload.SYNC, Workload.LOCAL, Workload.MAIN);
    assertThat(o.tensorflow()).isEqualTo(Path.of("../tf"));
    assertThat(o.dataDir()).isEqualTo(Path.of("/d"));
    assertThat(o.scaling()).isFalse();
    assertThat(o.timeoutFor(Workload.ASYNC)).isEqualTo(60);
    assertThat(o.psflowTaskFlags()).isEqualTo(List.of("--x=1", "--y=2"));
    assertThat(o.insecure()).isTrue();
  }

  @Test
  void theDefaultTimeoutGrowsWithStepsAndModelSize() {
    BenchOptions o = BenchOptions.parse(new String[] {"--train_steps=2000"}, DATA);
    assertThat(o.timeoutFor(Workload.ASYNC)).isEqualTo(620);
    assertThat(o.timeoutFor(Workload.asyncWith(1, 1600))).isEqualTo(120 + 0.25 * 2000 * 16);
  }

  @Test
  void mistakesNameTheOptionAndTheValue() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--runs=0"}, DATA))
        .hasMessage("--runs must be a positive whole number, got '0'");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--workloads=local,fast"}, DATA))
        .hasMessageContaining("unknown workload 'fast'");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--steps=5"}, DATA))
        .hasMessageContaining("unknown option --steps=5");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--tensorflow"}, DATA))
        .hasMessageContaining("--tensorflow needs a value");
  }
}
