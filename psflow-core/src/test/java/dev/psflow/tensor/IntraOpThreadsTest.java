package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** The intra-op split: every part runs once, failures come back to the caller, and it never deadlocks. */
class IntraOpThreadsTest {
  @Test
  void runsEveryPartExactlyOnceAndReturnsWhenAllHaveFinished() {
    for (int parts : new int[] {0, 1, 2, 5, 64}) {
      AtomicIntegerArray runs = new AtomicIntegerArray(Math.max(parts, 1));
      IntraOpThreads.run(parts, i -> {
        busyMicros(50);
        runs.incrementAndGet(i);
      });
      for (int i = 0; i < parts; i++) {
        assertThat(runs.get(i)).as("part %d of %d", i, parts).isEqualTo(1);
      }
    }
  }

  @Test
  void aFailingPartIsRethrownAfterTheOthersFinish() {
    AtomicIntegerArray runs = new AtomicIntegerArray(4);
    assertThatThrownBy(() -> IntraOpThreads.run(4, i -> {
      busyMicros(100);
      runs.incrementAndGet(i);
      if (i == 2) {
        throw new IllegalArgumentException("part 2 failed");
      }
    })).isInstanceOf(IllegalArgumentException.class).hasMessage("part 2 failed");
    for (int i = 0; i < 4; i++) {
      assertThat(runs.get(i)).isEqualTo(1);
    }
  }

  @Test
  void aPartMaySplitAgain() {
    AtomicIntegerArray runs = new AtomicIntegerArray(9);
    IntraOpThreads.run(3, i -> IntraOpThreads.run(3, j -> runs.incrementAndGet(3 * i + j)));
    for (int i = 0; i < 9; i++) {
      assertThat(runs.get(i)).isEqualTo(1);
    }
  }

  @Test
  void anInterruptedCallerStillWaitsForEveryPartAndKeepsItsInterrupt() {
    AtomicIntegerArray runs = new AtomicIntegerArray(3);
    Thread.currentThread().interrupt();
    try {
      IntraOpThreads.run(3, i -> {
        busyMicros(2_000);
        runs.incrementAndGet(i);
      });
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    for (int i = 0; i < 3; i++) {
      assertThat(runs.get(i)).isEqualTo(1);
    }
  }

  private static void busyMicros(long micros) {
    long until = System.nanoTime() + micros * 1_000;
    while (System.nanoTime() < until) {
      Thread.onSpinWait();
    }
  }
}
