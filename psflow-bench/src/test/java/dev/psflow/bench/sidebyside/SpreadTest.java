package dev.psflow.bench.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Medians with their range, over a few runs. */
class SpreadTest {
  @Test
  void oddCountTakesTheMiddleValue() {
    assertThat(Spread.of(3, 1, 2)).isEqualTo(new Spread(2, 1, 3, 3));
  }

  @Test
  void evenCountAveragesTheTwoMiddleValues() {
    assertThat(Spread.of(4, 1, 3, 10)).isEqualTo(new Spread(3.5, 1, 10, 4));
  }

  @Test
  void unknownValuesAreLeftOut() {
    assertThat(Spread.of(Double.NaN, 5, 7)).isEqualTo(new Spread(6, 5, 7, 2));
    assertThat(Spread.of(Double.NaN).median()).isNaN();
    assertThat(Spread.of().count()).isZero();
  }
}
