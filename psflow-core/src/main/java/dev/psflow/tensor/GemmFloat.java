package dev.psflow.tensor;

import static dev.psflow.tensor.GemmMicroKernel.MR;
import static dev.psflow.tensor.GemmMicroKernel.NR;
import static dev.psflow.tensor.GemmMicroKernel.VL;
import static dev.psflow.tensor.GemmPacking.KC_MAX;
import static dev.psflow.tensor.GemmPacking.NC_MAX;

/**
 * The vectorized single-precision path behind {@link Gemm#sgemm}, for products large enough to
 * repay packing: the GotoBLAS loop nest around {@link GemmPacking} and {@link GemmMicroKernel}.
 * Package-private; reached only when {@link VectorSupport#AVAILABLE}, since it links the Vector
 * API. Thread-safe: its state lives in the calling thread's scratch.
 */
final class GemmFloat {
  private GemmFloat() {}

  /**
   * The product with the calling thread's scratch {@code s}, which the caller looks up: a
   * ThreadLocal lookup in here was compiled by C2 with the warm-up thread's profile of
   * ThreadLocalMap (every lookup a hit), and the first lookup that missed on a training thread
   * threw this method's C2 code away, twice per worker, with 0.3 s of C2 time and seconds of
   * slower products each; a trap in the small caller costs a few milliseconds to recompile.
   */
  static void sgemm(GemmPacking.Scratch s, boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
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
      // A narrow last panel may be packed overlapping the one before (see panelShift); its
      // kernel then covers columns jr - shift .. jr + nr, and only overwriting C stores it
      // directly (adding would add the overlap twice).
      int shift = GemmPacking.panelShift(nc, jr, w);
      // A strip of at most 4 rows (the last of m = 100) takes a 4-row kernel.
      boolean four = mr <= 4 && w == NR;
      boolean direct = (mr == MR || four && mr == 4) && (nr == w || shift > 0 && !add);
      float[] out = direct ? c : tile;
      int outBase = direct ? cBase + jr - shift : 0;
      int outLd = direct ? ldc : NR;
      boolean addOut = direct && add;
      if (w == NR && GemmMicroKernel.WIDE_AS_TWO_HALVES) {
        GemmMicroKernel.pair4(ap, 0, aRows, bp, jr * kc, kc, out, outBase, outLd, addOut);
        if (!four) {
          GemmMicroKernel.pair4(ap, aRows ? 4 * GemmMicroKernel.ROW : 4, aRows, bp, jr * kc, kc,
              out, outBase + 4 * outLd, outLd, addOut);
        }
      } else if (four) {
        GemmMicroKernel.wide4(ap, 0, aRows, bp, jr * kc, kc, out, outBase, outLd, addOut);
      } else if (w == NR) {
        GemmMicroKernel.wide(ap, 0, aRows, bp, jr * kc, kc, out, outBase, outLd, addOut);
      } else if (w == 2 * VL) {
        GemmMicroKernel.medium(ap, 0, aRows, bp, jr * kc, kc, out, outBase, outLd, addOut);
      } else {
        GemmMicroKernel.narrow(ap, 0, aRows, bp, jr * kc, kc, out, outBase, outLd, addOut);
      }
      if (!direct) {
        GemmPacking.mergeCTile(tile, shift, c, cBase + jr, ldc, mr, nr, add);
      }
    }
  }

  static int roundUp(int x, int multiple) {
    return Math.ceilDiv(x, multiple) * multiple;
  }
}
