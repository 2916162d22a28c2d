package dev.psflow.ops.training;

import static dev.psflow.ops.training.AdamArrays.bits;
import static dev.psflow.ops.training.AdamArrays.values;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Adam's update of a variable long enough to split over the intra-op threads (a hidden layer of
 * 1600 units) gives the bits one pass of the plain loop gives: every element is its own, whatever
 * range holds it, on whichever kernel (vector lanes, psflow's C kernel or the plain loop) this JVM
 * runs.
 */
class AdamSplitTest {
  private static final float LR_T = 0.01f;
  private static final float BETA1 = 0.9f;
  private static final float BETA2 = 0.999f;
  private static final float EPS = 1e-7f;

  @ParameterizedTest(name = "{0} parts, nesterov={1}, into another array={2}")
  @CsvSource({"2, false, true", "3, false, false", "3, true, true", "4, true, false"})
  void aSplitUpdateEqualsOnePass(int parts, boolean nesterov, boolean intoAnotherArray) {
    int off = 5;
    int gOff = 2;
    int len = 2 * ApplyAdam.PARALLEL_ELEMENTS + 1_001; // no whole number of vectors or cache lines
    SplittableRandom r = new SplittableRandom(parts * 31L + (nesterov ? 1 : 0));
    float[] w = values(r, off + len, 1f);
    float[] m = values(r, off + len, 1e-3f);
    float[] v = values(r, off + len, 1e-5f);
    float[] g = values(r, gOff + len, 1e-2f);
    m[off + 1] = 1e-38f; // a moment that flushes to zero
    g[gOff + len - 1] = Float.NaN;

    float[] wOnePass = w.clone();
    float[] outOnePass = intoAnotherArray ? new float[w.length] : wOnePass;
    float[] mOnePass = m.clone();
    float[] vOnePass = v.clone();
    float[] wOut = intoAnotherArray ? new float[w.length] : w;
    for (int step = 0; step < 2; step++) {
      ApplyAdam.scalar32(wOnePass, outOnePass, mOnePass, vOnePass, off, g, gOff, 0, len, LR_T, BETA1, BETA2, EPS,
          nesterov);
      ApplyAdam.update32InParts(parts, w, wOut, m, v, off, g, gOff, len, LR_T, BETA1, BETA2, EPS, nesterov);
    }

    assertThat(bits(wOut)).as("variable").isEqualTo(bits(outOnePass));
    assertThat(bits(m)).as("m").isEqualTo(bits(mOnePass));
    assertThat(bits(v)).as("v").isEqualTo(bits(vOnePass));
  }
}
