package dev.psflow.tensor;

import static dev.psflow.tensor.GemmMicroKernel.S;
import static dev.psflow.tensor.GemmMicroKernel.VL;
import static dev.psflow.tensor.GemmPacking.SCRATCH;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The single-precision path for a C at most one vector wide ({@code n <= VL}: a 10-class logit
 * layer and its weights' gradient). Package-private; reached from {@link GemmFloat} only, so only
 * when {@link VectorSupport#AVAILABLE}. Stateless apart from the calling thread's scratch, so
 * thread-safe.
 *
 * <p>The blocked path pads such a C to a whole panel, merges every tile through the scratch C
 * tile, and packs all of A, although each element of A meets a single FMA here: packing it cost
 * about as much as the product. So only op(B) is packed, once, as k rows of {@code width} floats
 * (zero past column n), and A is read where it lies: row-major A from eight row starts,
 * transposed A as eight adjacent values per kk. Rows of C go eight at a time (eight independent
 * FMA chains cover the FMA latency), then four, then one.
 *
 * <p>A row of C is two 256-bit vectors rather than one 512-bit one: on Zen 4 a 512-bit broadcast
 * of A costs as much issue as the FMA it feeds, so with one FMA per broadcast the kernel ran at
 * ~2/3 of the FMA peak (78 against OpenBLAS's 113 GFLOP/s at n = 16); sharing each 256-bit
 * broadcast between two FMAs reached ~105. A C at most {@code YL} wide takes one vector a row.
 *
 * <p>The kernels are written out by hand for the reason {@link GemmMicroKernel} gives (C2 keeps
 * accumulators in registers only if no vector crosses a call), and use no masks: a C narrower
 * than the packed width goes via the C tile and a masked copy ({@link #mergeRows}), since the
 * masked loads' and stores' library code made the 8-row kernel too large for C1, which then
 * never handed it to C2.
 */
final class GemmNarrow {
  /** 256-bit vectors where the hardware has them (the preferred species where it is narrower). */
  static final VectorSpecies<Float> Y = VectorSpecies.of(float.class,
      VectorShape.forBitSize(Math.min(256, S.vectorBitSize())));
  /** Floats per Y vector: 8 on AVX2 and AVX-512. */
  static final int YL = Y.length();
  /**
   * Whether transposed A takes {@link #columnBlock}: its 2VL x 8 block of C needs 16 of 32
   * registers, so AVX-512's; with AVX2's 16 it would spill.
   */
  private static final boolean BY_COLUMNS = VL >= 16;

  /**
   * The longest K taken here: op(B) is packed whole (k rows of up to 16 floats) into the thread's
   * scratch, which keeps its largest size; past this a long product (a matrix-vector product over
   * a wide input) takes the blocked path, whose packed block stays under 256 x 48 floats.
   */
  static final int MAX_K = 4096;

  private GemmNarrow() {}

  /** Whether this path takes a C n columns wide (one Y vector a row, or two where VL allows) over k. */
  static boolean handles(int n, int k) {
    return n <= Math.max(YL, Math.min(VL, 2 * YL)) && k <= MAX_K;
  }

  static void sgemm(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    GemmPacking.Scratch s = SCRATCH.get();
    boolean two = n > YL;
    int width = two ? 2 * YL : YL;
    float[] bp = s.bPack(k * width);
    packB(transB, n, k, b, bOff, ldb, bp, width);
    boolean direct = n == width;
    float[] out = direct ? c : s.cTile;
    int outLd = direct ? ldc : width;
    boolean addOut = direct && accumulate;
    // Row i of op(A) starts at aOff + i * rowStep.
    int rowStep = transA ? 1 : lda;
    int i = 0;
    if (transA && BY_COLUMNS) {
      for (; i + 2 * VL <= m; i += 2 * VL) {
        columnBlock(a, aOff + i, lda, bp, width, k, n, s.cTile, c, cOff + i * ldc, ldc,
            accumulate);
      }
    }
    for (; i + 8 <= m; i += 8) {
      int aBase = aOff + i * rowStep;
      int outBase = direct ? cOff + i * ldc : 0;
      if (two) {
        rows8x2(a, aBase, lda, transA, bp, k, out, outBase, outLd, addOut);
      } else {
        rows8x1(a, aBase, lda, transA, bp, k, out, outBase, outLd, addOut);
      }
      if (!direct) {
        mergeRows(s.cTile, width, 8, n, c, cOff + i * ldc, ldc, accumulate);
      }
    }
    if (i + 4 <= m) {
      int aBase = aOff + i * rowStep;
      int outBase = direct ? cOff + i * ldc : 0;
      if (two) {
        rows4x2(a, aBase, lda, transA, bp, k, out, outBase, outLd, addOut);
      } else {
        rows4x1(a, aBase, lda, transA, bp, k, out, outBase, outLd, addOut);
      }
      if (!direct) {
        mergeRows(s.cTile, width, 4, n, c, cOff + i * ldc, ldc, accumulate);
      }
      i += 4;
    }
    int kStep = transA ? lda : 1;
    for (; i < m; i++) {
      int aBase = aOff + i * rowStep;
      int outBase = direct ? cOff + i * ldc : 0;
      if (two) {
        rows1x2(a, aBase, kStep, bp, k, out, outBase, addOut);
      } else {
        rows1x1(a, aBase, kStep, bp, k, out, outBase, addOut);
      }
      if (!direct) {
        mergeRows(s.cTile, width, 1, n, c, cOff + i * ldc, ldc, accumulate);
      }
    }
  }

  /**
   * C[2VL x n] (+)= op(A)[2VL x k] * Bpacked for transposed A, whose 2VL row values at each kk
   * are adjacent: two full vectors of a column of C, one broadcast of B for two FMAs, and no
   * lane wasted on padding (a 10-wide row of C fills 10 of 16 lanes). Columns go in groups of
   * 8, 4, 2 and 1 (10 = 8 + 2), each through the C tile, transposed into C by a scalar copy.
   */
  private static void columnBlock(float[] a, int aBase, int lda, float[] bp, int width, int k,
      int n, float[] tile, float[] c, int cBase, int ldc, boolean add) {
    for (int j = 0; j < n; ) {
      int g;
      if (n - j >= 8) {
        g = 8;
        cols8(a, aBase, lda, bp, j, width, k, tile);
      } else if (n - j >= 4) {
        g = 4;
        cols4(a, aBase, lda, bp, j, width, k, tile);
      } else if (n - j >= 2) {
        g = 2;
        cols2(a, aBase, lda, bp, j, width, k, tile);
      } else {
        g = 1;
        cols1(a, aBase, lda, bp, j, width, k, tile);
      }
      mergeColumns(tile, g, c, cBase + j, ldc, add);
      j += g;
    }
  }

  /** C[2VL x cols] (+)= the tile's first columns, each 2VL rows long. */
  private static void mergeColumns(float[] tile, int cols, float[] c, int cBase, int ldc,
      boolean add) {
    for (int r = 0; r < 2 * VL; r++, cBase += ldc) {
      if (add) {
        for (int j = 0, t = r; j < cols; j++, t += 2 * VL) {
          c[cBase + j] += tile[t];
        }
      } else {
        for (int j = 0, t = r; j < cols; j++, t += 2 * VL) {
          c[cBase + j] = tile[t];
        }
      }
    }
  }

  /** op(B) as k rows of {@code width} floats, zero past column n so padding lanes stay zero. */
  private static void packB(boolean transB, int n, int k, float[] b, int bOff, int ldb,
      float[] bp, int width) {
    if (!transB && width == VL) {
      VectorMask<Float> cols = S.indexInRange(0, n);
      for (int kk = 0, src = bOff, d = 0; kk < k; kk++, src += ldb, d += VL) {
        FloatVector.fromArray(S, b, src, cols).intoArray(bp, d);
      }
      return;
    }
    if (!transB && width == YL) {
      VectorMask<Float> cols = Y.indexInRange(0, n);
      for (int kk = 0, src = bOff, d = 0; kk < k; kk++, src += ldb, d += YL) {
        FloatVector.fromArray(Y, b, src, cols).intoArray(bp, d);
      }
      return;
    }
    // B stored n x k: a scalar transpose. No product of the models we train takes it.
    Arrays.fill(bp, 0, k * width, 0f);
    int js = transB ? ldb : 1;
    int ks = transB ? 1 : ldb;
    for (int j = 0, src = bOff; j < n; j++, src += js) {
      for (int kk = 0, from = src, d = j; kk < k; kk++, from += ks, d += width) {
        bp[d] = b[from];
      }
    }
  }

  /** C[rows x n] (+)= the tile's first rows ({@code width} apart), by masked vector copies. */
  private static void mergeRows(float[] tile, int width, int rows, int n, float[] c, int cBase,
      int ldc, boolean add) {
    VectorMask<Float> cols = S.indexInRange(0, n);
    for (int r = 0, t = 0; r < rows; r++, t += width, cBase += ldc) {
      FloatVector v = FloatVector.fromArray(S, tile, t, cols);
      if (add) {
        v = v.add(FloatVector.fromArray(S, c, cBase, cols));
      }
      v.intoArray(c, cBase, cols);
    }
  }

  /**
   * C[8 x 2YL] (+)= op(A)[8 x k] * Bpacked, B rows 2YL wide: row-major A from eight row starts
   * {@code lda} apart, transposed A as eight adjacent values per kk. Each broadcast of A feeds two
   * FMAs.
   */
  private static void rows8x2(float[] a, int aBase, int lda, boolean transA, float[] bp,
      int k, float[] c, int cBase, int ldc, boolean add) {
    int o0 = cBase, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc;
    int o4 = o3 + ldc, o5 = o4 + ldc, o6 = o5 + ldc, o7 = o6 + ldc;
    FloatVector c0, c1, c2, c3, c4, c5, c6, c7;
    FloatVector d0, d1, d2, d3, d4, d5, d6, d7;
    if (add) {
      c0 = FloatVector.fromArray(Y, c, o0);
      d0 = FloatVector.fromArray(Y, c, o0 + YL);
      c1 = FloatVector.fromArray(Y, c, o1);
      d1 = FloatVector.fromArray(Y, c, o1 + YL);
      c2 = FloatVector.fromArray(Y, c, o2);
      d2 = FloatVector.fromArray(Y, c, o2 + YL);
      c3 = FloatVector.fromArray(Y, c, o3);
      d3 = FloatVector.fromArray(Y, c, o3 + YL);
      c4 = FloatVector.fromArray(Y, c, o4);
      d4 = FloatVector.fromArray(Y, c, o4 + YL);
      c5 = FloatVector.fromArray(Y, c, o5);
      d5 = FloatVector.fromArray(Y, c, o5 + YL);
      c6 = FloatVector.fromArray(Y, c, o6);
      d6 = FloatVector.fromArray(Y, c, o6 + YL);
      c7 = FloatVector.fromArray(Y, c, o7);
      d7 = FloatVector.fromArray(Y, c, o7 + YL);
    } else {
      c0 = FloatVector.zero(Y);
      c1 = c0; c2 = c0; c3 = c0; c4 = c0; c5 = c0; c6 = c0; c7 = c0; d0 = c0;
      d1 = c0; d2 = c0; d3 = c0; d4 = c0; d5 = c0; d6 = c0; d7 = c0;
    }
    if (transA) {
      for (int kk = 0, ia = aBase, ib = 0; kk < k; kk++, ia += lda, ib += 2 * YL) {
        FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
        FloatVector b1 = FloatVector.fromArray(Y, bp, ib + YL);
        FloatVector x = FloatVector.broadcast(Y, a[ia]);
        c0 = x.fma(b0, c0); d0 = x.fma(b1, d0);
        x = FloatVector.broadcast(Y, a[ia + 1]);
        c1 = x.fma(b0, c1); d1 = x.fma(b1, d1);
        x = FloatVector.broadcast(Y, a[ia + 2]);
        c2 = x.fma(b0, c2); d2 = x.fma(b1, d2);
        x = FloatVector.broadcast(Y, a[ia + 3]);
        c3 = x.fma(b0, c3); d3 = x.fma(b1, d3);
        x = FloatVector.broadcast(Y, a[ia + 4]);
        c4 = x.fma(b0, c4); d4 = x.fma(b1, d4);
        x = FloatVector.broadcast(Y, a[ia + 5]);
        c5 = x.fma(b0, c5); d5 = x.fma(b1, d5);
        x = FloatVector.broadcast(Y, a[ia + 6]);
        c6 = x.fma(b0, c6); d6 = x.fma(b1, d6);
        x = FloatVector.broadcast(Y, a[ia + 7]);
        c7 = x.fma(b0, c7); d7 = x.fma(b1, d7);
      }
    } else {
      int a0 = aBase, a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
      int a4 = a3 + lda, a5 = a4 + lda, a6 = a5 + lda, a7 = a6 + lda;
      for (int kk = 0, ib = 0; kk < k; kk++, ib += 2 * YL) {
        FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
        FloatVector b1 = FloatVector.fromArray(Y, bp, ib + YL);
        FloatVector x = FloatVector.broadcast(Y, a[a0 + kk]);
        c0 = x.fma(b0, c0); d0 = x.fma(b1, d0);
        x = FloatVector.broadcast(Y, a[a1 + kk]);
        c1 = x.fma(b0, c1); d1 = x.fma(b1, d1);
        x = FloatVector.broadcast(Y, a[a2 + kk]);
        c2 = x.fma(b0, c2); d2 = x.fma(b1, d2);
        x = FloatVector.broadcast(Y, a[a3 + kk]);
        c3 = x.fma(b0, c3); d3 = x.fma(b1, d3);
        x = FloatVector.broadcast(Y, a[a4 + kk]);
        c4 = x.fma(b0, c4); d4 = x.fma(b1, d4);
        x = FloatVector.broadcast(Y, a[a5 + kk]);
        c5 = x.fma(b0, c5); d5 = x.fma(b1, d5);
        x = FloatVector.broadcast(Y, a[a6 + kk]);
        c6 = x.fma(b0, c6); d6 = x.fma(b1, d6);
        x = FloatVector.broadcast(Y, a[a7 + kk]);
        c7 = x.fma(b0, c7); d7 = x.fma(b1, d7);
      }
    }
    c0.intoArray(c, o0);
    d0.intoArray(c, o0 + YL);
    c1.intoArray(c, o1);
    d1.intoArray(c, o1 + YL);
    c2.intoArray(c, o2);
    d2.intoArray(c, o2 + YL);
    c3.intoArray(c, o3);
    d3.intoArray(c, o3 + YL);
    c4.intoArray(c, o4);
    d4.intoArray(c, o4 + YL);
    c5.intoArray(c, o5);
    d5.intoArray(c, o5 + YL);
    c6.intoArray(c, o6);
    d6.intoArray(c, o6 + YL);
    c7.intoArray(c, o7);
    d7.intoArray(c, o7 + YL);
  }

  /** {@link #rows8x2} for a block of four rows (the 4 left of 100 = 12 x 8 + 4). */
  private static void rows4x2(float[] a, int aBase, int lda, boolean transA, float[] bp,
      int k, float[] c, int cBase, int ldc, boolean add) {
    int o0 = cBase, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc;
    FloatVector c0, c1, c2, c3, d0, d1, d2, d3;
    if (add) {
      c0 = FloatVector.fromArray(Y, c, o0);
      d0 = FloatVector.fromArray(Y, c, o0 + YL);
      c1 = FloatVector.fromArray(Y, c, o1);
      d1 = FloatVector.fromArray(Y, c, o1 + YL);
      c2 = FloatVector.fromArray(Y, c, o2);
      d2 = FloatVector.fromArray(Y, c, o2 + YL);
      c3 = FloatVector.fromArray(Y, c, o3);
      d3 = FloatVector.fromArray(Y, c, o3 + YL);
    } else {
      c0 = FloatVector.zero(Y);
      c1 = c0; c2 = c0; c3 = c0; d0 = c0; d1 = c0; d2 = c0; d3 = c0;
    }
    if (transA) {
      for (int kk = 0, ia = aBase, ib = 0; kk < k; kk++, ia += lda, ib += 2 * YL) {
        FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
        FloatVector b1 = FloatVector.fromArray(Y, bp, ib + YL);
        FloatVector x = FloatVector.broadcast(Y, a[ia]);
        c0 = x.fma(b0, c0); d0 = x.fma(b1, d0);
        x = FloatVector.broadcast(Y, a[ia + 1]);
        c1 = x.fma(b0, c1); d1 = x.fma(b1, d1);
        x = FloatVector.broadcast(Y, a[ia + 2]);
        c2 = x.fma(b0, c2); d2 = x.fma(b1, d2);
        x = FloatVector.broadcast(Y, a[ia + 3]);
        c3 = x.fma(b0, c3); d3 = x.fma(b1, d3);
      }
    } else {
      int a0 = aBase, a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
      for (int kk = 0, ib = 0; kk < k; kk++, ib += 2 * YL) {
        FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
        FloatVector b1 = FloatVector.fromArray(Y, bp, ib + YL);
        FloatVector x = FloatVector.broadcast(Y, a[a0 + kk]);
        c0 = x.fma(b0, c0); d0 = x.fma(b1, d0);
        x = FloatVector.broadcast(Y, a[a1 + kk]);
        c1 = x.fma(b0, c1); d1 = x.fma(b1, d1);
        x = FloatVector.broadcast(Y, a[a2 + kk]);
        c2 = x.fma(b0, c2); d2 = x.fma(b1, d2);
        x = FloatVector.broadcast(Y, a[a3 + kk]);
        c3 = x.fma(b0, c3); d3 = x.fma(b1, d3);
      }
    }
    c0.intoArray(c, o0);
    d0.intoArray(c, o0 + YL);
    c1.intoArray(c, o1);
    d1.intoArray(c, o1 + YL);
    c2.intoArray(c, o2);
    d2.intoArray(c, o2 + YL);
    c3.intoArray(c, o3);
    d3.intoArray(c, o3 + YL);
  }

  /** {@link #rows8x2} for one row: op(A)'s row from aBase, kStep apart per kk. */
  private static void rows1x2(float[] a, int aBase, int kStep, float[] bp, int k,
      float[] c, int cBase, boolean add) {
    FloatVector c0, d0;
    if (add) {
      c0 = FloatVector.fromArray(Y, c, cBase);
      d0 = FloatVector.fromArray(Y, c, cBase + YL);
    } else {
      c0 = FloatVector.zero(Y);
      d0 = c0;
    }
    for (int kk = 0, ia = aBase, ib = 0; kk < k; kk++, ia += kStep, ib += 2 * YL) {
      FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
      FloatVector b1 = FloatVector.fromArray(Y, bp, ib + YL);
      FloatVector x = FloatVector.broadcast(Y, a[ia]);
      c0 = x.fma(b0, c0); d0 = x.fma(b1, d0);
    }
    c0.intoArray(c, cBase);
    d0.intoArray(c, cBase + YL);
  }

  /** {@link #rows8x2} for a C at most YL wide: B rows YL wide, one vector a row. */
  private static void rows8x1(float[] a, int aBase, int lda, boolean transA, float[] bp,
      int k, float[] c, int cBase, int ldc, boolean add) {
    int o0 = cBase, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc;
    int o4 = o3 + ldc, o5 = o4 + ldc, o6 = o5 + ldc, o7 = o6 + ldc;
    FloatVector c0, c1, c2, c3, c4, c5, c6, c7;
    if (add) {
      c0 = FloatVector.fromArray(Y, c, o0);
      c1 = FloatVector.fromArray(Y, c, o1);
      c2 = FloatVector.fromArray(Y, c, o2);
      c3 = FloatVector.fromArray(Y, c, o3);
      c4 = FloatVector.fromArray(Y, c, o4);
      c5 = FloatVector.fromArray(Y, c, o5);
      c6 = FloatVector.fromArray(Y, c, o6);
      c7 = FloatVector.fromArray(Y, c, o7);
    } else {
      c0 = FloatVector.zero(Y);
      c1 = c0; c2 = c0; c3 = c0; c4 = c0; c5 = c0; c6 = c0; c7 = c0;
    }
    if (transA) {
      for (int kk = 0, ia = aBase, ib = 0; kk < k; kk++, ia += lda, ib += YL) {
        FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
        c0 = FloatVector.broadcast(Y, a[ia]).fma(b0, c0);
        c1 = FloatVector.broadcast(Y, a[ia + 1]).fma(b0, c1);
        c2 = FloatVector.broadcast(Y, a[ia + 2]).fma(b0, c2);
        c3 = FloatVector.broadcast(Y, a[ia + 3]).fma(b0, c3);
        c4 = FloatVector.broadcast(Y, a[ia + 4]).fma(b0, c4);
        c5 = FloatVector.broadcast(Y, a[ia + 5]).fma(b0, c5);
        c6 = FloatVector.broadcast(Y, a[ia + 6]).fma(b0, c6);
        c7 = FloatVector.broadcast(Y, a[ia + 7]).fma(b0, c7);
      }
    } else {
      int a0 = aBase, a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
      int a4 = a3 + lda, a5 = a4 + lda, a6 = a5 + lda, a7 = a6 + lda;
      for (int kk = 0, ib = 0; kk < k; kk++, ib += YL) {
        FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
        c0 = FloatVector.broadcast(Y, a[a0 + kk]).fma(b0, c0);
        c1 = FloatVector.broadcast(Y, a[a1 + kk]).fma(b0, c1);
        c2 = FloatVector.broadcast(Y, a[a2 + kk]).fma(b0, c2);
        c3 = FloatVector.broadcast(Y, a[a3 + kk]).fma(b0, c3);
        c4 = FloatVector.broadcast(Y, a[a4 + kk]).fma(b0, c4);
        c5 = FloatVector.broadcast(Y, a[a5 + kk]).fma(b0, c5);
        c6 = FloatVector.broadcast(Y, a[a6 + kk]).fma(b0, c6);
        c7 = FloatVector.broadcast(Y, a[a7 + kk]).fma(b0, c7);
      }
    }
    c0.intoArray(c, o0);
    c1.intoArray(c, o1);
    c2.intoArray(c, o2);
    c3.intoArray(c, o3);
    c4.intoArray(c, o4);
    c5.intoArray(c, o5);
    c6.intoArray(c, o6);
    c7.intoArray(c, o7);
  }

  /** {@link #rows8x1} for a block of four rows. */
  private static void rows4x1(float[] a, int aBase, int lda, boolean transA, float[] bp,
      int k, float[] c, int cBase, int ldc, boolean add) {
    int o0 = cBase, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc;
    FloatVector c0, c1, c2, c3;
    if (add) {
      c0 = FloatVector.fromArray(Y, c, o0);
      c1 = FloatVector.fromArray(Y, c, o1);
      c2 = FloatVector.fromArray(Y, c, o2);
      c3 = FloatVector.fromArray(Y, c, o3);
    } else {
      c0 = FloatVector.zero(Y);
      c1 = c0; c2 = c0; c3 = c0;
    }
    if (transA) {
      for (int kk = 0, ia = aBase, ib = 0; kk < k; kk++, ia += lda, ib += YL) {
        FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
        c0 = FloatVector.broadcast(Y, a[ia]).fma(b0, c0);
        c1 = FloatVector.broadcast(Y, a[ia + 1]).fma(b0, c1);
        c2 = FloatVector.broadcast(Y, a[ia + 2]).fma(b0, c2);
        c3 = FloatVector.broadcast(Y, a[ia + 3]).fma(b0, c3);
      }
    } else {
      int a0 = aBase, a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
      for (int kk = 0, ib = 0; kk < k; kk++, ib += YL) {
        FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
        c0 = FloatVector.broadcast(Y, a[a0 + kk]).fma(b0, c0);
        c1 = FloatVector.broadcast(Y, a[a1 + kk]).fma(b0, c1);
        c2 = FloatVector.broadcast(Y, a[a2 + kk]).fma(b0, c2);
        c3 = FloatVector.broadcast(Y, a[a3 + kk]).fma(b0, c3);
      }
    }
    c0.intoArray(c, o0);
    c1.intoArray(c, o1);
    c2.intoArray(c, o2);
    c3.intoArray(c, o3);
  }

  /** {@link #rows8x1} for one row: op(A)'s row from aBase, kStep apart per kk. */
  private static void rows1x1(float[] a, int aBase, int kStep, float[] bp, int k,
      float[] c, int cBase, boolean add) {
    FloatVector c0;
    if (add) {
      c0 = FloatVector.fromArray(Y, c, cBase);
    } else {
      c0 = FloatVector.zero(Y);
    }
    for (int kk = 0, ia = aBase, ib = 0; kk < k; kk++, ia += kStep, ib += YL) {
      FloatVector b0 = FloatVector.fromArray(Y, bp, ib);
      c0 = FloatVector.broadcast(Y, a[ia]).fma(b0, c0);
    }
    c0.intoArray(c, cBase);
  }

  private static void cols8(float[] a, int aBase, int lda, float[] bp, int bBase, int width,
      int k, float[] t) {
    FloatVector c00, c10, c01, c11, c02, c12, c03, c13;
    FloatVector c04, c14, c05, c15, c06, c16, c07, c17;
    c00 = FloatVector.zero(S);
    c10 = c00; c01 = c00; c11 = c00; c02 = c00; c12 = c00; c03 = c00; c13 = c00; c04 = c00;
    c14 = c00; c05 = c00; c15 = c00; c06 = c00; c16 = c00; c07 = c00; c17 = c00;
    for (int kk = 0, ia = aBase, ib = bBase; kk < k; kk++, ia += lda, ib += width) {
      FloatVector a0 = FloatVector.fromArray(S, a, ia);
      FloatVector a1 = FloatVector.fromArray(S, a, ia + VL);
      FloatVector x = FloatVector.broadcast(S, bp[ib]);
      c00 = a0.fma(x, c00); c10 = a1.fma(x, c10);
      x = FloatVector.broadcast(S, bp[ib + 1]);
      c01 = a0.fma(x, c01); c11 = a1.fma(x, c11);
      x = FloatVector.broadcast(S, bp[ib + 2]);
      c02 = a0.fma(x, c02); c12 = a1.fma(x, c12);
      x = FloatVector.broadcast(S, bp[ib + 3]);
      c03 = a0.fma(x, c03); c13 = a1.fma(x, c13);
      x = FloatVector.broadcast(S, bp[ib + 4]);
      c04 = a0.fma(x, c04); c14 = a1.fma(x, c14);
      x = FloatVector.broadcast(S, bp[ib + 5]);
      c05 = a0.fma(x, c05); c15 = a1.fma(x, c15);
      x = FloatVector.broadcast(S, bp[ib + 6]);
      c06 = a0.fma(x, c06); c16 = a1.fma(x, c16);
      x = FloatVector.broadcast(S, bp[ib + 7]);
      c07 = a0.fma(x, c07); c17 = a1.fma(x, c17);
    }
    c00.intoArray(t, 0);
    c10.intoArray(t, VL);
    c01.intoArray(t, 1 * 2 * VL);
    c11.intoArray(t, 1 * 2 * VL + VL);
    c02.intoArray(t, 2 * 2 * VL);
    c12.intoArray(t, 2 * 2 * VL + VL);
    c03.intoArray(t, 3 * 2 * VL);
    c13.intoArray(t, 3 * 2 * VL + VL);
    c04.intoArray(t, 4 * 2 * VL);
    c14.intoArray(t, 4 * 2 * VL + VL);
    c05.intoArray(t, 5 * 2 * VL);
    c15.intoArray(t, 5 * 2 * VL + VL);
    c06.intoArray(t, 6 * 2 * VL);
    c16.intoArray(t, 6 * 2 * VL + VL);
    c07.intoArray(t, 7 * 2 * VL);
    c17.intoArray(t, 7 * 2 * VL + VL);
  }

  private static void cols4(float[] a, int aBase, int lda, float[] bp, int bBase, int width,
      int k, float[] t) {
    FloatVector c00, c10, c01, c11, c02, c12, c03, c13;
    c00 = FloatVector.zero(S);
    c10 = c00; c01 = c00; c11 = c00; c02 = c00; c12 = c00; c03 = c00; c13 = c00;
    for (int kk = 0, ia = aBase, ib = bBase; kk < k; kk++, ia += lda, ib += width) {
      FloatVector a0 = FloatVector.fromArray(S, a, ia);
      FloatVector a1 = FloatVector.fromArray(S, a, ia + VL);
      FloatVector x = FloatVector.broadcast(S, bp[ib]);
      c00 = a0.fma(x, c00); c10 = a1.fma(x, c10);
      x = FloatVector.broadcast(S, bp[ib + 1]);
      c01 = a0.fma(x, c01); c11 = a1.fma(x, c11);
      x = FloatVector.broadcast(S, bp[ib + 2]);
      c02 = a0.fma(x, c02); c12 = a1.fma(x, c12);
      x = FloatVector.broadcast(S, bp[ib + 3]);
      c03 = a0.fma(x, c03); c13 = a1.fma(x, c13);
    }
    c00.intoArray(t, 0);
    c10.intoArray(t, VL);
    c01.intoArray(t, 1 * 2 * VL);
    c11.intoArray(t, 1 * 2 * VL + VL);
    c02.intoArray(t, 2 * 2 * VL);
    c12.intoArray(t, 2 * 2 * VL + VL);
    c03.intoArray(t, 3 * 2 * VL);
    c13.intoArray(t, 3 * 2 * VL + VL);
  }

  private static void cols2(float[] a, int aBase, int lda, float[] bp, int bBase, int width,
      int k, float[] t) {
    FloatVector c00, c10, c01, c11;
    c00 = FloatVector.zero(S);
    c10 = c00; c01 = c00; c11 = c00;
    for (int kk = 0, ia = aBase, ib = bBase; kk < k; kk++, ia += lda, ib += width) {
      FloatVector a0 = FloatVector.fromArray(S, a, ia);
      FloatVector a1 = FloatVector.fromArray(S, a, ia + VL);
      FloatVector x = FloatVector.broadcast(S, bp[ib]);
      c00 = a0.fma(x, c00); c10 = a1.fma(x, c10);
      x = FloatVector.broadcast(S, bp[ib + 1]);
      c01 = a0.fma(x, c01); c11 = a1.fma(x, c11);
    }
    c00.intoArray(t, 0);
    c10.intoArray(t, VL);
    c01.intoArray(t, 1 * 2 * VL);
    c11.intoArray(t, 1 * 2 * VL + VL);
  }

  private static void cols1(float[] a, int aBase, int lda, float[] bp, int bBase, int width,
      int k, float[] t) {
    FloatVector c00, c10;
    c00 = FloatVector.zero(S);
    c10 = c00;
    for (int kk = 0, ia = aBase, ib = bBase; kk < k; kk++, ia += lda, ib += width) {
      FloatVector a0 = FloatVector.fromArray(S, a, ia);
      FloatVector a1 = FloatVector.fromArray(S, a, ia + VL);
      FloatVector x = FloatVector.broadcast(S, bp[ib]);
      c00 = a0.fma(x, c00); c10 = a1.fma(x, c10);
    }
    c00.intoArray(t, 0);
    c10.intoArray(t, VL);
  }
}
