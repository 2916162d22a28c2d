package dev.psflow.ops.training;

import static dev.psflow.ops.training.AdamArrays.bits;
import static dev.psflow.ops.training.AdamArrays.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.psflow.tensor.NativeKernels;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Adam in psflow's C kernel (what a ps task runs, without C2) computes what the plain-Java loop
 * computes, bit for bit: moments that decay into subnormals flush to zero, NaN and infinities pass
 * through, Nesterov's step, a variable written to another array, and the variable and the gradient
 * at different offsets (a sparse row).
 */
class NativeAdamTest {
  private static final float LR_T = 0.01f;
  private static final float BETA1 = 0.9f;
  private static final float BETA2 = 0.999f;
  private static final float EPS = 1e-7f;

  @Test
  void matchesThePlainJavaLoopBitForBit() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64 (NativeKernelsTest)").isTrue();
    for (boolean nesterov : new boolean[] {false, true}) {
      for (boolean intoAnotherArray : new boolean[] {false, true}) {
        int off = 7;
        int gOff = 3;
        int len = 10_007; // no whole number of vectors of any width
        SplittableRandom r = new SplittableRandom(nesterov ? 11 : 12);
        float[] w = values(r, off + len, 1f);
        float[] m = values(r, off + len, 1e-3f);
        float[] v = values(r, off + len, 1e-5f);
        float[] g = values(r, gOff + len, 1e-2f);
        // subnormal, zero, NaN and infinite inputs where the flushes and the square root meet them
        m[off] = 1e-38f;
        v[off] = 1e-38f;
        g[gOff] = 0f;
        g[gOff + 1] = Float.NaN;
        g[gOff + 2] = Float.POSITIVE_INFINITY;
        g[gOff + 3] = 1e-30f;
        v[off + 4] = Float.MIN_VALUE;

        float[] wJava = w.clone();
        float[] wOutJava = intoAnotherArray ? new float[w.length] : wJava;
        float[] mJava = m.clone();
        float[] vJava = v.clone();
        float[] wNative = w.clone();
        float[] wOutNative = intoAnotherArray ? new float[w.length] : wNative;
        float[] mNative = m.clone();
        float[] vNative = v.clone();
        for (int step = 0; step < 3; step++) {
          ApplyAdam.scalar32(wJava, wOutJava, mJava, vJava, off, g, gOff, 0, len, LR_T, BETA1, BETA2, EPS, nesterov);
          NativeKernels.applyAdam(wNative, wOutNative, mNative, vNative, off, g, gOff, len, LR_T, BETA1, BETA2, EPS,
              nesterov);
        }
        String what = "nesterov=" + nesterov + ", into another array=" + intoAnotherArray;
        assertThat(bits(wOutNative)).as("variable, " + what).isEqualTo(bits(wOutJava));
        assertThat(bits(mNative)).as("m, " + what).isEqualTo(bits(mJava));
        assertThat(bits(vNative)).as("v, " + what).isEqualTo(bits(vJava));
        assertThat(mNative[off]).as("m flushed").isZero();
        assertThat(wOutNative[off + 1]).as("a NaN gradient").isNaN();
        assertThat(wNative[0]).as("before the offset, untouched").isEqualTo(w[0]);
      }
    }
  }

  @Test
  void updatesArraysLongerThanOneDowncallTakesInPieces() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64 (NativeKernelsTest)").isTrue();
    int len = (1 << 20) * 2 + 5;
    SplittableRandom r = new SplittableRandom(13);
    float[] w = values(r, len + 1, 1f);
    float[] m = values(r, len + 1, 1e-3f);
    float[] v = values(r, len + 1, 1e-5f);
    float[] g = values(r, len, 1e-2f);
    float[] wJava = w.clone();
    float[] mJava = m.clone();
    float[] vJava = v.clone();
    ApplyAdam.scalar32(wJava, wJava, mJava, vJava, 1, g, 0, 0, len, LR_T, BETA1, BETA2, EPS, false);
    NativeKernels.applyAdam(w, w, m, v, 1, g, 0, len, LR_T, BETA1, BETA2, EPS, false);
    assertThat(bits(w)).isEqualTo(bits(wJava));
    assertThat(bits(m)).isEqualTo(bits(mJava));
    assertThat(bits(v)).isEqualTo(bits(vJava));
  }
}
