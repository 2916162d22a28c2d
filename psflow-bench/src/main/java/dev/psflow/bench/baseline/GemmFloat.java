package dev.psflow.bench.baseline;

import static dev.psflow.bench.baseline.GemmMicroKernel.MR;
import static dev.psflow.bench.baseline.GemmMicroKernel.NR;
import static dev.psflow.bench.baseline.GemmPacking.KC_MAX;
import static dev.psflow.bench.baseline.GemmPacking.NC_MAX;
import static dev.psflow.bench.baseline.GemmPacking.SCRATCH;

/**
 * A frozen copy of psflow-core's float GEMM path (GemmFloat, GemmMicroKernel, GemmPacking) as it
 * was before the kernel rework of issue 9, kept so that {@code GemmGflops --baseline} can time
 * the old and the current kernel alternately in one JVM: on a shared 2-core machine only ratios
 * taken in the same run mean anything. Not used by psflow itself. Needs the Vector API.
 */
public final class GemmFloat {
  private GemmFloat() {}

  /** {@code C (+)= op(A) * op(B)}, arguments as {@code Gemm.sgemm}; no argument checks. */
  public static void sgemm(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    GemmPacking.Scratch s = SCRATCH.get();
    // Balanced blocks: k = 784 becomes 4 x 196 rather than 3 x 256 + 16, so no block is so
    // short that the kernel's load and store of C dominates it.
    int kcStep = Math.ceilDiv(k, Math.ceilDiv(k, KC_MAX));
    int ncStep = roundUp(Math.ceilDiv(n, Math.ceilDiv(n, NC_MAX)), NR);
    float[] bp = s.bPack(kcStep * roundUp(Math.min(n, ncStep), NR));
    for (int jc = 0; jc < n; jc += ncStep) {
      int nc = Math.min(ncStep, n - jc);
      for (int pc = 0; pc < k; pc += kcStep) {
        int kc = Math.min(kcStep, k - pc);
        boolean add = accumulate || pc > 0;
        GemmPacking.packB(transB, b, bOff, ldb, pc, kc, jc, nc, bp, s.rowIndex);
        // One A strip at a time: it stays in L1 while the packed B block streams from L2.
        for (int ir = 0; ir < m; ir += MR) {
          int mr = Math.min(MR, m - ir);
          GemmPacking.packA(transA, a, aOff, lda, ir, mr, pc, kc, s.aPack);
          rowOfTiles(s.aPack, !transA, bp, kc, nc, c, cOff + ir * ldc + jc, ldc, mr, add,
              s.cTile);
        }
      }
    }
  }

  /** One strip of MR x panel tiles across the packed block; partial tiles go via the C tile. */
  private static void rowOfTiles(float[] ap, boolean aRows, float[] bp, int kc, int nc,
      float[] c, int cBase, int ldc, int mr, boolean add, float[] tile) {
    for (int jr = 0; jr < nc; jr += NR) {
      int w = GemmPacking.panelWidth(nc - jr);
      int nr = Math.min(w, nc - jr);
      boolean direct = mr == MR && nr == w;
      float[] out = direct ? c : tile;
      int outBase = direct ? cBase + jr : 0;
      int outLd = direct ? ldc : NR;
      if (w == NR) {
        GemmMicroKernel.wide(ap, 0, aRows, bp, jr * kc, kc, out, outBase, outLd,
            direct && add);
      } else {
        GemmMicroKernel.narrow(ap, 0, aRows, bp, jr * kc, kc, out, outBase, outLd,
            direct && add);
      }
      if (!direct) {
        GemmPacking.mergeCTile(tile, c, cBase + jr, ldc, mr, nr, add);
      }
    }
  }

  static int roundUp(int x, int multiple) {
    return Math.ceilDiv(x, multiple) * multiple;
  }
}
