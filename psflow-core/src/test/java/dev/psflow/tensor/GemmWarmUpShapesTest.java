package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link Gemm#warmUpShapes()} must take every path of this machine's kernels, as C = A·B, Aᵀ·C
 * and C·Bᵀ (whose output is n, n and k wide): a path the warm-up misses is compiled as a trap
 * that the first real product springs. Checked against the kernels' own panel rules.
 */
class GemmWarmUpShapesTest {
  private static final int VL = GemmMicroKernel.VL;
  private static final int NR = GemmMicroKernel.NR;

  @Test
  void everyShapeIsLargeEnoughForTheVectorKernels() {
    assumeTrue(VectorSupport.AVAILABLE);
    for (int[] s : Gemm.warmUpShapes()) {
      assertThat((long) s[0] * s[1] * s[2]).as("m*k*n of %dx%dx%d", s[0], s[1], s[2])
          .isGreaterThanOrEqualTo(4096);
    }
  }

  @Test
  void outputWidthsEndInEveryKindOfPanel() {
    assumeTrue(VectorSupport.AVAILABLE);
    Set<String> plainOrTransposedA = new HashSet<>();
    Set<String> transposedB = new HashSet<>();
    for (int[] s : Gemm.warmUpShapes()) {
      plainOrTransposedA.add(lastPanel(s[2]));
      transposedB.add(lastPanel(s[1]));
    }
    Set<String> all = new HashSet<>(Set.of("whole", "one vector, half filled", "one vector",
        "full width, wider than its block"));
    if (NR > 2 * VL) {
      all.add("two vectors"); // on AVX2 a full panel is two vectors
    }
    assertThat(plainOrTransposedA).containsAll(all);
    assertThat(transposedB).containsAll(all);
  }

  @Test
  void someProductHasTwoKBlocksAndSomeStripHasFourRowsOrFewer() {
    assumeTrue(VectorSupport.AVAILABLE);
    boolean twoBlocks = false;
    boolean shortStrip = false;
    for (int[] s : Gemm.warmUpShapes()) {
      twoBlocks |= s[1] > GemmPacking.KC_MAX;
      shortStrip |= s[0] % GemmMicroKernel.MR != 0 && s[0] % GemmMicroKernel.MR <= 4;
    }
    assertThat(twoBlocks).isTrue();
    assertThat(shortStrip).isTrue();
  }

  /** The kind of the last panel of an n-column output (one column block: n at most NC_MAX). */
  private static String lastPanel(int n) {
    assertThat(n).isLessThanOrEqualTo(GemmPacking.NC_MAX);
    int rest = n % NR == 0 ? NR : n % NR;
    int w = GemmPacking.panelWidth(rest);
    if (rest == NR) {
      return "whole";
    }
    if (w == NR) {
      return n < NR ? "full width, wider than its block" : "full width, cut";
    }
    if (w == 2 * VL) {
      return "two vectors";
    }
    return rest <= VL / 2 ? "one vector, half filled" : "one vector";
  }
}
