package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Flush-to-zero: exactly the values with |x| below the smallest normal number become +0. */
class DenormalsTest {
  private static final float[] FLOATS = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL,
      -Float.MIN_NORMAL, Math.nextDown(Float.MIN_NORMAL), -Math.nextDown(Float.MIN_NORMAL), 1f, -1f, Float.MAX_VALUE,
      Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, Float.intBitsToFloat(0x7fc00001)};
  private static final double[] DOUBLES = {0.0, -0.0, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL,
      -Double.MIN_NORMAL, Math.nextDown(Double.MIN_NORMAL), 1.0, -1.0, Double.MAX_VALUE, Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY, Double.NaN};

  @Test
  void aFloatBelowTheSmallestNormalBecomesPositiveZeroAndAnyOtherIsKeptBitForBit() {
    for (float x : FLOATS) {
      assertFlushed(x);
    }
    SplittableRandom random = new SplittableRandom(9);
    for (int i = 0; i < 1_000_000; i++) {
      assertFlushed(Float.intBitsToFloat(random.nextInt()));
    }
  }

  @Test
  void aDoubleBelowTheSmallestNormalBecomesPositiveZeroAndAnyOtherIsKeptBitForBit() {
    for (double x : DOUBLES) {
      assertFlushed(x);
    }
    SplittableRandom random = new SplittableRandom(9);
    for (int i = 0; i < 1_000_000; i++) {
      assertFlushed(Double.longBitsToDouble(random.nextLong()));
    }
  }

  private static void assertFlushed(float x) {
    float expected = Math.abs(x) < Float.MIN_NORMAL ? 0f : x;
    assertThat(Float.floatToRawIntBits(Denormals.flush(x))).as("flush(%s)", x)
        .isEqualTo(Float.floatToRawIntBits(expected));
  }

  private static void assertFlushed(double x) {
    double expected = Math.abs(x) < Double.MIN_NORMAL ? 0.0 : x;
    assertThat(Double.doubleToRawLongBits(Denormals.flush(x))).as("flush(%s)", x)
        .isEqualTo(Double.doubleToRawLongBits(expected));
  }
}
