package dev.psflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The per-step line reads exactly as the example's printf wrote it. */
class StepLineTest {
  @Test
  void readsAsTheExamplesFormatString() {
    SplittableRandom rnd = new SplittableRandom(7);
    long[] edges = {0L, 1L, 9L, 10L, 99L, 100L, 999L, 1000L, 1001L, 1_795_666_746_466L, 1_795_666_746_000L,
        1_795_666_746_009L, 4_102_444_800_999L};
    for (long millis : edges) {
      assertSame(millis, 3, 17, 2000);
    }
    for (int i = 0; i < 100_000; i++) {
      assertSame(rnd.nextLong(1_000_000_000_000L, 4_102_444_800_000L), rnd.nextInt(16), rnd.nextLong(1 << 20),
          rnd.nextLong(1L << 40));
    }
  }

  private static void assertSame(long millis, int task, long localStep, long globalStep) {
    String printf = String.format(Locale.ROOT, "%f: Worker %d: training step %d done (global step: %d)",
        millis / 1000.0, task, localStep, globalStep);
    assertThat(StepLine.of(millis, task, localStep, globalStep)).isEqualTo(printf);
  }
}
