package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UnsignedBytesTest {
  @Test
  void everyByteValueScalesBitForBitAsThePlainFormulaAtEveryLengthAndOffset() {
    byte[] src = new byte[300];
    for (int i = 0; i < src.length; i++) {
      src[i] = (byte) (i * 7); // all 256 values, signed and unsigned halves
    }
    float scale = (float) (1.0 / 255.0);
    for (int n : new int[] {0, 1, 15, 16, 17, 63, 64, 65, 255, 256}) {
      for (int from : new int[] {0, 3, 44 - Math.min(n, 44)}) {
        float[] dst = new float[n + 5];
        UnsignedBytes.scaleToFloats(src, from, dst, 5, n, scale);
        for (int j = 0; j < n; j++) {
          assertThat(dst[5 + j]).as("n=%d from=%d j=%d", n, from, j).isEqualTo((src[from + j] & 0xff) * scale);
        }
        assertThat(dst[0]).isZero(); // nothing before the offset is written
      }
    }
  }
}
