package dev.psflow.tensor;

import static dev.psflow.tensor.GemmMicroKernel.MR;
import static dev.psflow.tensor.GemmMicroKernel.NR;
import static dev.psflow.tensor.GemmMicroKernel.ROW;
import static dev.psflow.tensor.GemmMicroKernel.S;
import static dev.psflow.tensor.GemmMicroKernel.VL;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Packing and edge tiles for {@link Gemm}'s single-precision path, plus the per-thread scratch
 * they live in. Package-private.
 *
 * <p>Packed B layout: op(B)[pc:pc+kc, jc:jc+nc] as consecutive panels; the panel starting at
 * column jr of the block begins at {@code jr * kc} (every earlier panel is NR wide) and holds,
 * for each kk, its {@link #panelWidth} columns contiguously.
 */
final class GemmPacking {
  /** Largest K block: an 8 x 256 slice of A (8 KiB) stays in L1 across the panels of B. */
  static final int KC_MAX = GemmMicroKernel.ROW;
  /** Largest N block: bounds the packed B block (kc x nc floats, ~1 MiB) to fit L2. */
  static final int NC_MAX = Math.max(NR, (1024 / NR) * NR);

  /** MR floats: one kk step of a transposed A strip is a single vector copy. */
  private static final VectorSpecies<Float> A_ROW = FloatVector.SPECIES_256;

  /** Per-thread buffers, grown on demand and never shrunk, so steady state allocates nothing. */
  static final class Scratch {
    float[] bPack = new float[0];
    final float[] aPack = new float[MR * KC_MAX];
    final float[] cTile = new float[MR * NR];
    final int[] rowIndex = new int[VL];
    double[] dPack = new double[0];

    float[] bPack(int size) {
      if (bPack.length < size) {
        bPack = new float[size];
      }
      return bPack;
    }

    double[] dPack(int size) {
      if (dPack.length < size) {
        dPack = new double[size];
      }
      return dPack;
    }
  }

  static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

  private GemmPacking() {}

  /**
   * The width of the panel that starts with {@code remainingCols} columns left: NR while at least
   * that many remain, then the narrower of 2VL and VL that holds the rest, so that the last
   * panel's kernel computes little padding. No narrower: a half-width kernel ran the Vector API's
   * generic methods on a second vector class, their shared type profiles then named both, and
   * now and then C2 compiled the wide kernel from such a profile into code that boxed every
   * vector (a local run 12x slower from its first step; docs/benchmarks.md). A panel of VL/2 or
   * fewer columns is computed one vector wide.
   */
  static int panelWidth(int remainingCols) {
    if (remainingCols > 2 * VL) {
      return NR;
    }
    if (remainingCols > VL) {
      return 2 * VL;
    }
    return VL;
  }

  /**
   * How many columns the panel at jr of an nc-column block starts left of jr: a last panel
   * narrower than its width w, in a block at least w wide, is packed as the block's last w
   * columns, overlapping the panel before it. Its kernel then computes no padding, and a
   * strip that overwrites C can store it directly: the overlapped columns get the values the
   * previous panel stored, bit for bit (same FMAs in the same order). At n = 100 and K = 10
   * (dx = dy * W^T) the 4-column last panel's way through the C tile and a scalar merge cost
   * ~20% of the product.
   */
  static int panelShift(int nc, int jr, int w) {
    return nc - jr < w && nc >= w ? w - (nc - jr) : 0;
  }

  /** Packs op(B)[pc:pc+kc, jc:jc+nc]; see the class comment for the layout. */
  static void packB(boolean transB, float[] b, int bOff, int ldb, int pc, int kc, int jc, int nc,
      float[] dst, int[] rowIndex) {
    for (int jr = 0; jr < nc; jr += NR) {
      int w = panelWidth(nc - jr);
      int shift = panelShift(nc, jr, w);
      int cols = Math.min(w, nc - jr) + shift;
      int base = jr * kc;
      int col = jc + jr - shift;
      if (transB) {
        packTransposed(b, bOff + col * ldb + pc, ldb, kc, cols, w, dst, base, rowIndex);
      } else {
        packRows(b, bOff + pc * ldb + col, ldb, kc, cols, w, dst, base);
      }
    }
  }

  /** B stored k x n: each panel row is a contiguous run of B's row. */
  private static void packRows(float[] b, int src, int ldb, int kc, int cols, int w,
      float[] dst, int base) {
    if (cols == w && w % VL == 0) {
      for (int kk = 0; kk < kc; kk++, src += ldb, base += w) {
        for (int v = 0; v < w; v += VL) {
          FloatVector.fromArray(S, b, src + v).intoArray(dst, base + v);
        }
      }
      return;
    }
    // Padding lanes only feed C columns that are discarded; zero them so stale bits (NaN,
    // subnormals) cannot slow the FMAs down.
    Arrays.fill(dst, base, base + kc * w, 0f);
    for (int kk = 0; kk < kc; kk++, src += ldb, base += w) {
      for (int j = 0; j < cols; j++) {
        dst[base + j] = b[src + j];
      }
    }
  }

  /**
   * Packs the op(A) strip [ir:ir+mr, pc:pc+kc] in the layout its storage copies into without a
   * transpose (see {@link GemmMicroKernel}): row-major A as rows {@code ROW} apart, transposed A
   * as MR values per kk. Rows past {@code mr} are zero; their products land in C tile rows that
   * are discarded.
   */
  static void packA(boolean transA, float[] a, int aOff, int lda, int ir, int mr, int pc, int kc,
      float[] ap) {
    if (!transA) {
      for (int i = 0, src = aOff + ir * lda + pc; i < MR; i++, src += lda) {
        if (i < mr) {
          System.arraycopy(a, src, ap, i * ROW, kc);
        } else {
          Arrays.fill(ap, i * ROW, i * ROW + kc, 0f);
        }
      }
      return;
    }
    int src = aOff + pc * lda + ir;
    if (mr == MR) {
      for (int kk = 0, d = 0; kk < kc; kk++, src += lda, d += MR) {
        FloatVector.fromArray(A_ROW, a, src).intoArray(ap, d);
      }
      return;
    }
    for (int kk = 0, d = 0; kk < kc; kk++, src += lda, d += MR) {
      System.arraycopy(a, src, ap, d, mr);
      Arrays.fill(ap, d + mr, d + MR, 0f);
    }
  }

  /**
   * B stored n x k: column j of a panel is a contiguous run of B's row j, so each vector of a
   * panel row is gathered from VL rows of B. The gather is about twice as fast as a scalar
   * transpose, which matters for dx = dy * W^T, where this copy is ~1/8 of the work.
   */
  private static void packTransposed(float[] b, int src, int ldb, int kc, int cols, int w,
      float[] dst, int base, int[] rowIndex) {
    if (cols == w && w % VL == 0) {
      for (int l = 0; l < VL; l++) {
        rowIndex[l] = l * ldb;
      }
      for (int v = 0; v < w; v += VL, src += VL * ldb) {
        for (int kk = 0, d = base + v; kk < kc; kk++, d += w) {
          FloatVector.fromArray(S, b, src + kk, rowIndex, 0).intoArray(dst, d);
        }
      }
      return;
    }
    Arrays.fill(dst, base, base + kc * w, 0f);
    for (int j = 0; j < cols; j++, src += ldb) {
      for (int kk = 0, d = base + j; kk < kc; kk++, d += w) {
        dst[d] = b[src + kk];
      }
    }
  }

  /**
   * C[mr x nr] (+)= the C tile's mr x nr block from column tOff (row stride NR). Plain loops, not
   * System.arraycopy: the rows are short (a 10-class output merges 10 floats a row, every strip)
   * and the copy stub's call cost more than the copy.
   */
  static void mergeCTile(float[] tile, int tOff, float[] c, int cBase, int ldc, int mr, int nr,
      boolean add) {
    for (int i = 0, t = tOff; i < mr; i++, cBase += ldc, t += NR) {
      if (add) {
        for (int j = 0; j < nr; j++) {
          c[cBase + j] += tile[t + j];
        }
      } else {
        for (int j = 0; j < nr; j++) {
          c[cBase + j] = tile[t + j];
        }
      }
    }
  }
}
