package dev.psflow.ops.training;

import java.util.SplittableRandom;

/** The arrays Adam's bit-for-bit tests feed the update, and the bits they compare. */
final class AdamArrays {
  private AdamArrays() {}

  /** {@code n} floats uniform in (-scale, scale). */
  static float[] values(SplittableRandom r, int n, float scale) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) (r.nextDouble(-1, 1) * scale);
    }
    return a;
  }

  /** Each float's raw bits, so that NaN payloads and signed zeros compare too. */
  static int[] bits(float[] a) {
    int[] b = new int[a.length];
    for (int i = 0; i < a.length; i++) {
      b[i] = Float.floatToRawIntBits(a[i]);
    }
    return b;
  }
}
