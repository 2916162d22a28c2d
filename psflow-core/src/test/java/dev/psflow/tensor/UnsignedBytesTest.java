package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Pixels to floats: every byte read as unsigned and scaled, bit for bit as the plain expression. */
class UnsignedBytesTest {
  @Test
  void everyByteValueBecomesItsUnsignedValueTimesTheScale() {
    byte[] src = new byte[256];
    for (int i = 0; i < 256; i++) {
      src[i] = (byte) i;
    }
    float[] dst = new float[256];
    UnsignedBytes.toScaledFloats(src, 0, dst, 0, 256, 1f / 255);
    for (int i = 0; i < 256; i++) {
      assertThat(Float.floatToRawIntBits(dst[i])).as("pixel %d", i).isEqualTo(Float.floatToRawIntBits(i * (1f / 255)));
    }
  }

  @Test
  void anyOffsetsAndLengthIncludingTailsShorterThanAVectorWriteOnlyTheirRange() {
    SplittableRandom random = new SplittableRandom(7);
    byte[] src = new byte[2000];
    for (int i = 0; i < src.length; i++) {
      src[i] = (byte) random.nextInt(256);
    }
    for (int n : new int[] {0, 1, 7, 8, 9, 15, 16, 17, 784, 785}) {
      int srcOff = random.nextInt(100);
      int dstOff = random.nextInt(100);
      float[] dst = new float[dstOff + n + 3];
      java.util.Arrays.fill(dst, -1f);
      UnsignedBytes.toScaledFloats(src, srcOff, dst, dstOff, n, 0.5f);
      assertWroteOnlyTheRange(src, srcOff, dst, dstOff, n, "toScaledFloats");
      java.util.Arrays.fill(dst, -1f);
      UnsignedBytes.plain(src, srcOff, dst, dstOff, 0, n, 0.5f); // the path a JVM without C2 takes
      assertWroteOnlyTheRange(src, srcOff, dst, dstOff, n, "plain");
    }
  }

  private static void assertWroteOnlyTheRange(byte[] src, int srcOff, float[] dst, int dstOff, int n, String path) {
    for (int i = 0; i < dst.length; i++) {
      float expected = i >= dstOff && i < dstOff + n ? (src[srcOff + i - dstOff] & 0xff) * 0.5f : -1f;
      assertThat(dst[i]).as("%s, n=%d, dst[%d]", path, n, i).isEqualTo(expected);
    }
  }
}
