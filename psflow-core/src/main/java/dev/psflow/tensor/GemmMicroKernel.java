package dev.psflow.tensor;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The single-precision inner kernels of {@link Gemm}: one tile of {@link #MR} rows of C by one
 * packed panel of B, summed over one K block. Package-private; stateless, so thread-safe.
 *
 * <p>One kernel per panel width, so that the last panel of a row of C computes little padding:
 * {@link #wide} (NR = 3 vectors) for all full panels, then {@link #medium} (2 vectors) or
 * {@link #narrow} (1) for what is left (no narrower: see GemmPacking.panelWidth); {@link #wide4}
 * takes a last strip of at most 4 rows. With 16 vector registers (AVX2) a full panel is two
 * vectors and {@link #pair4} computes it, four rows at a time ({@link #WIDE_AS_TWO_HALVES}).
 *
 * <p>Both operands come packed by {@link GemmPacking}. A B panel holds, for each kk, its NR (or
 * VL) column values contiguously. An A strip comes in one of two layouts, whichever its source
 * copies into without a transpose: row-major A as {@link #MR} rows {@link #ROW} floats apart,
 * transposed A as MR row values per kk. Either way every load in the loop sits at a constant
 * offset from one induction variable, so C2 drops the bounds checks and folds each A load into
 * a broadcast from memory. (Reading A in place through a runtime row stride was measured ~30%
 * slower: eight bounds checks or eight address registers per step, and spills.)
 *
 * <p>Everything is written out by hand rather than via helpers or arrays: C2 keeps all
 * accumulators in vector registers only if no vector crosses a call that might not be inlined,
 * and methods this large stop inlining ordinary calls. The wide kernel uses 24 accumulators +
 * 3 B vectors + 1 broadcast = 28 of AVX-512's 32 registers. AVX2 has 16, and C2 loads all of a
 * step's broadcasts before its FMAs: {@link #wide4}'s 12 accumulators + 3 B vectors + 4
 * broadcasts spilled two accumulators to the stack on every kk (seen in its machine code), which
 * held it to ~42 GFLOP/s in L1 here (Zen 3). {@link #pair4}'s 8 + 2 + 4 fit, and it reached ~92.
 * The A index runs from a caller-supplied {@code aBase} rather than from the loop counter: when
 * it equalled the counter, C2 scheduled all eight broadcasts ahead of the B loads and spilled
 * two accumulators, which measured ~15% slower.
 */
final class GemmMicroKernel {
  static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
  /** Floats per vector: 16 on AVX-512, 8 on AVX2. */
  static final int VL = S.length();
  /** Rows of C per tile. */
  static final int MR = 8;
  /**
   * With 16 vector registers (AVX2), {@link #wide}'s 24 accumulators spill, and so do
   * {@link #wide4}'s 12: a full panel is then two vectors wide and its tile two 4-row halves by
   * {@link #pair4}.
   */
  static final boolean WIDE_AS_TWO_HALVES = VL < 16;
  /** Columns of a full panel of packed B: three vectors, or two on AVX2. */
  static final int NR = (WIDE_AS_TWO_HALVES ? 2 : 3) * VL;
  /** Distance between rows of a row-major packed A strip: the largest K block. */
  static final int ROW = 256;

  private GemmMicroKernel() {}

  /**
   * C[8 x NR] (+)= A[8 x kc] * Bpanel[kc x NR], for the A strip at {@code aBase} (row-major if
   * {@code aRows}, else kk-major) and the B panel at {@code bBase}. With {@code add} false the
   * tile is overwritten, which saves zeroing C first.
   */
  static void wide(float[] ap, int aBase, boolean aRows, float[] bp, int bBase, int kc,
      float[] c, int cBase, int ldc, boolean add) {
    int o0 = cBase, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc;
    int o4 = o3 + ldc, o5 = o4 + ldc, o6 = o5 + ldc, o7 = o6 + ldc;
    FloatVector c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32;
    FloatVector c40, c41, c42, c50, c51, c52, c60, c61, c62, c70, c71, c72;
    if (add) {
      c00 = FloatVector.fromArray(S, c, o0);
      c01 = FloatVector.fromArray(S, c, o0 + VL);
      c02 = FloatVector.fromArray(S, c, o0 + 2 * VL);
      c10 = FloatVector.fromArray(S, c, o1);
      c11 = FloatVector.fromArray(S, c, o1 + VL);
      c12 = FloatVector.fromArray(S, c, o1 + 2 * VL);
      c20 = FloatVector.fromArray(S, c, o2);
      c21 = FloatVector.fromArray(S, c, o2 + VL);
      c22 = FloatVector.fromArray(S, c, o2 + 2 * VL);
      c30 = FloatVector.fromArray(S, c, o3);
      c31 = FloatVector.fromArray(S, c, o3 + VL);
      c32 = FloatVector.fromArray(S, c, o3 + 2 * VL);
      c40 = FloatVector.fromArray(S, c, o4);
      c41 = FloatVector.fromArray(S, c, o4 + VL);
      c42 = FloatVector.fromArray(S, c, o4 + 2 * VL);
      c50 = FloatVector.fromArray(S, c, o5);
      c51 = FloatVector.fromArray(S, c, o5 + VL);
      c52 = FloatVector.fromArray(S, c, o5 + 2 * VL);
      c60 = FloatVector.fromArray(S, c, o6);
      c61 = FloatVector.fromArray(S, c, o6 + VL);
      c62 = FloatVector.fromArray(S, c, o6 + 2 * VL);
      c70 = FloatVector.fromArray(S, c, o7);
      c71 = FloatVector.fromArray(S, c, o7 + VL);
      c72 = FloatVector.fromArray(S, c, o7 + 2 * VL);
    } else {
      c00 = FloatVector.zero(S);
      c01 = c00; c02 = c00;
      c10 = c00; c11 = c00; c12 = c00;
      c20 = c00; c21 = c00; c22 = c00;
      c30 = c00; c31 = c00; c32 = c00;
      c40 = c00; c41 = c00; c42 = c00;
      c50 = c00; c51 = c00; c52 = c00;
      c60 = c00; c61 = c00; c62 = c00;
      c70 = c00; c71 = c00; c72 = c00;
    }
    if (aRows) {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia++, ib += NR) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        FloatVector b1 = FloatVector.fromArray(S, bp, ib + VL);
        FloatVector b2 = FloatVector.fromArray(S, bp, ib + 2 * VL);
        FloatVector x = FloatVector.broadcast(S, ap[ia]);
        c00 = x.fma(b0, c00); c01 = x.fma(b1, c01); c02 = x.fma(b2, c02);
        x = FloatVector.broadcast(S, ap[ia + ROW]);
        c10 = x.fma(b0, c10); c11 = x.fma(b1, c11); c12 = x.fma(b2, c12);
        x = FloatVector.broadcast(S, ap[ia + 2 * ROW]);
        c20 = x.fma(b0, c20); c21 = x.fma(b1, c21); c22 = x.fma(b2, c22);
        x = FloatVector.broadcast(S, ap[ia + 3 * ROW]);
        c30 = x.fma(b0, c30); c31 = x.fma(b1, c31); c32 = x.fma(b2, c32);
        x = FloatVector.broadcast(S, ap[ia + 4 * ROW]);
        c40 = x.fma(b0, c40); c41 = x.fma(b1, c41); c42 = x.fma(b2, c42);
        x = FloatVector.broadcast(S, ap[ia + 5 * ROW]);
        c50 = x.fma(b0, c50); c51 = x.fma(b1, c51); c52 = x.fma(b2, c52);
        x = FloatVector.broadcast(S, ap[ia + 6 * ROW]);
        c60 = x.fma(b0, c60); c61 = x.fma(b1, c61); c62 = x.fma(b2, c62);
        x = FloatVector.broadcast(S, ap[ia + 7 * ROW]);
        c70 = x.fma(b0, c70); c71 = x.fma(b1, c71); c72 = x.fma(b2, c72);
      }
    } else {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia += MR, ib += NR) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        FloatVector b1 = FloatVector.fromArray(S, bp, ib + VL);
        FloatVector b2 = FloatVector.fromArray(S, bp, ib + 2 * VL);
        FloatVector x = FloatVector.broadcast(S, ap[ia]);
        c00 = x.fma(b0, c00); c01 = x.fma(b1, c01); c02 = x.fma(b2, c02);
        x = FloatVector.broadcast(S, ap[ia + 1]);
        c10 = x.fma(b0, c10); c11 = x.fma(b1, c11); c12 = x.fma(b2, c12);
        x = FloatVector.broadcast(S, ap[ia + 2]);
        c20 = x.fma(b0, c20); c21 = x.fma(b1, c21); c22 = x.fma(b2, c22);
        x = FloatVector.broadcast(S, ap[ia + 3]);
        c30 = x.fma(b0, c30); c31 = x.fma(b1, c31); c32 = x.fma(b2, c32);
        x = FloatVector.broadcast(S, ap[ia + 4]);
        c40 = x.fma(b0, c40); c41 = x.fma(b1, c41); c42 = x.fma(b2, c42);
        x = FloatVector.broadcast(S, ap[ia + 5]);
        c50 = x.fma(b0, c50); c51 = x.fma(b1, c51); c52 = x.fma(b2, c52);
        x = FloatVector.broadcast(S, ap[ia + 6]);
        c60 = x.fma(b0, c60); c61 = x.fma(b1, c61); c62 = x.fma(b2, c62);
        x = FloatVector.broadcast(S, ap[ia + 7]);
        c70 = x.fma(b0, c70); c71 = x.fma(b1, c71); c72 = x.fma(b2, c72);
      }
    }
    c00.intoArray(c, o0);
    c01.intoArray(c, o0 + VL);
    c02.intoArray(c, o0 + 2 * VL);
    c10.intoArray(c, o1);
    c11.intoArray(c, o1 + VL);
    c12.intoArray(c, o1 + 2 * VL);
    c20.intoArray(c, o2);
    c21.intoArray(c, o2 + VL);
    c22.intoArray(c, o2 + 2 * VL);
    c30.intoArray(c, o3);
    c31.intoArray(c, o3 + VL);
    c32.intoArray(c, o3 + 2 * VL);
    c40.intoArray(c, o4);
    c41.intoArray(c, o4 + VL);
    c42.intoArray(c, o4 + 2 * VL);
    c50.intoArray(c, o5);
    c51.intoArray(c, o5 + VL);
    c52.intoArray(c, o5 + 2 * VL);
    c60.intoArray(c, o6);
    c61.intoArray(c, o6 + VL);
    c62.intoArray(c, o6 + 2 * VL);
    c70.intoArray(c, o7);
    c71.intoArray(c, o7 + VL);
    c72.intoArray(c, o7 + 2 * VL);
  }

  /**
   * C[8 x VL] (+)= A[8 x kc] * Bpanel[kc x VL], for a last panel of at most VL columns: padding
   * it to NR would triple the work for narrow outputs such as a 10-class logit layer.
   */
  static void narrow(float[] ap, int aBase, boolean aRows, float[] bp, int bBase, int kc,
      float[] c, int cBase, int ldc, boolean add) {
    int o0 = cBase, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc;
    int o4 = o3 + ldc, o5 = o4 + ldc, o6 = o5 + ldc, o7 = o6 + ldc;
    FloatVector c0, c1, c2, c3, c4, c5, c6, c7;
    if (add) {
      c0 = FloatVector.fromArray(S, c, o0);
      c1 = FloatVector.fromArray(S, c, o1);
      c2 = FloatVector.fromArray(S, c, o2);
      c3 = FloatVector.fromArray(S, c, o3);
      c4 = FloatVector.fromArray(S, c, o4);
      c5 = FloatVector.fromArray(S, c, o5);
      c6 = FloatVector.fromArray(S, c, o6);
      c7 = FloatVector.fromArray(S, c, o7);
    } else {
      c0 = FloatVector.zero(S);
      c1 = c0; c2 = c0; c3 = c0; c4 = c0; c5 = c0; c6 = c0; c7 = c0;
    }
    if (aRows) {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia++, ib += VL) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        c0 = FloatVector.broadcast(S, ap[ia]).fma(b0, c0);
        c1 = FloatVector.broadcast(S, ap[ia + ROW]).fma(b0, c1);
        c2 = FloatVector.broadcast(S, ap[ia + 2 * ROW]).fma(b0, c2);
        c3 = FloatVector.broadcast(S, ap[ia + 3 * ROW]).fma(b0, c3);
        c4 = FloatVector.broadcast(S, ap[ia + 4 * ROW]).fma(b0, c4);
        c5 = FloatVector.broadcast(S, ap[ia + 5 * ROW]).fma(b0, c5);
        c6 = FloatVector.broadcast(S, ap[ia + 6 * ROW]).fma(b0, c6);
        c7 = FloatVector.broadcast(S, ap[ia + 7 * ROW]).fma(b0, c7);
      }
    } else {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia += MR, ib += VL) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        c0 = FloatVector.broadcast(S, ap[ia]).fma(b0, c0);
        c1 = FloatVector.broadcast(S, ap[ia + 1]).fma(b0, c1);
        c2 = FloatVector.broadcast(S, ap[ia + 2]).fma(b0, c2);
        c3 = FloatVector.broadcast(S, ap[ia + 3]).fma(b0, c3);
        c4 = FloatVector.broadcast(S, ap[ia + 4]).fma(b0, c4);
        c5 = FloatVector.broadcast(S, ap[ia + 5]).fma(b0, c5);
        c6 = FloatVector.broadcast(S, ap[ia + 6]).fma(b0, c6);
        c7 = FloatVector.broadcast(S, ap[ia + 7]).fma(b0, c7);
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

  /**
   * C[8 x 2VL] (+)= A[8 x kc] * Bpanel[kc x 2VL], for a last panel of VL+1 to 2VL columns (the
   * 32 left of 512 = 10 x 48 + 32): the wide kernel would spend a third of its work on padding.
   */
  static void medium(float[] ap, int aBase, boolean aRows, float[] bp, int bBase, int kc,
      float[] c, int cBase, int ldc, boolean add) {
    int o0 = cBase, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc;
    int o4 = o3 + ldc, o5 = o4 + ldc, o6 = o5 + ldc, o7 = o6 + ldc;
    FloatVector c00, c01, c10, c11, c20, c21, c30, c31;
    FloatVector c40, c41, c50, c51, c60, c61, c70, c71;
    if (add) {
      c00 = FloatVector.fromArray(S, c, o0);
      c01 = FloatVector.fromArray(S, c, o0 + VL);
      c10 = FloatVector.fromArray(S, c, o1);
      c11 = FloatVector.fromArray(S, c, o1 + VL);
      c20 = FloatVector.fromArray(S, c, o2);
      c21 = FloatVector.fromArray(S, c, o2 + VL);
      c30 = FloatVector.fromArray(S, c, o3);
      c31 = FloatVector.fromArray(S, c, o3 + VL);
      c40 = FloatVector.fromArray(S, c, o4);
      c41 = FloatVector.fromArray(S, c, o4 + VL);
      c50 = FloatVector.fromArray(S, c, o5);
      c51 = FloatVector.fromArray(S, c, o5 + VL);
      c60 = FloatVector.fromArray(S, c, o6);
      c61 = FloatVector.fromArray(S, c, o6 + VL);
      c70 = FloatVector.fromArray(S, c, o7);
      c71 = FloatVector.fromArray(S, c, o7 + VL);
    } else {
      c00 = FloatVector.zero(S);
      c01 = c00; c10 = c00; c11 = c00; c20 = c00; c21 = c00; c30 = c00; c31 = c00;
      c40 = c00; c41 = c00; c50 = c00; c51 = c00; c60 = c00; c61 = c00; c70 = c00;
      c71 = c00;
    }
    if (aRows) {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia++, ib += 2 * VL) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        FloatVector b1 = FloatVector.fromArray(S, bp, ib + VL);
        FloatVector x = FloatVector.broadcast(S, ap[ia]);
        c00 = x.fma(b0, c00); c01 = x.fma(b1, c01);
        x = FloatVector.broadcast(S, ap[ia + ROW]);
        c10 = x.fma(b0, c10); c11 = x.fma(b1, c11);
        x = FloatVector.broadcast(S, ap[ia + 2 * ROW]);
        c20 = x.fma(b0, c20); c21 = x.fma(b1, c21);
        x = FloatVector.broadcast(S, ap[ia + 3 * ROW]);
        c30 = x.fma(b0, c30); c31 = x.fma(b1, c31);
        x = FloatVector.broadcast(S, ap[ia + 4 * ROW]);
        c40 = x.fma(b0, c40); c41 = x.fma(b1, c41);
        x = FloatVector.broadcast(S, ap[ia + 5 * ROW]);
        c50 = x.fma(b0, c50); c51 = x.fma(b1, c51);
        x = FloatVector.broadcast(S, ap[ia + 6 * ROW]);
        c60 = x.fma(b0, c60); c61 = x.fma(b1, c61);
        x = FloatVector.broadcast(S, ap[ia + 7 * ROW]);
        c70 = x.fma(b0, c70); c71 = x.fma(b1, c71);
      }
    } else {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia += MR, ib += 2 * VL) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        FloatVector b1 = FloatVector.fromArray(S, bp, ib + VL);
        FloatVector x = FloatVector.broadcast(S, ap[ia]);
        c00 = x.fma(b0, c00); c01 = x.fma(b1, c01);
        x = FloatVector.broadcast(S, ap[ia + 1]);
        c10 = x.fma(b0, c10); c11 = x.fma(b1, c11);
        x = FloatVector.broadcast(S, ap[ia + 2]);
        c20 = x.fma(b0, c20); c21 = x.fma(b1, c21);
        x = FloatVector.broadcast(S, ap[ia + 3]);
        c30 = x.fma(b0, c30); c31 = x.fma(b1, c31);
        x = FloatVector.broadcast(S, ap[ia + 4]);
        c40 = x.fma(b0, c40); c41 = x.fma(b1, c41);
        x = FloatVector.broadcast(S, ap[ia + 5]);
        c50 = x.fma(b0, c50); c51 = x.fma(b1, c51);
        x = FloatVector.broadcast(S, ap[ia + 6]);
        c60 = x.fma(b0, c60); c61 = x.fma(b1, c61);
        x = FloatVector.broadcast(S, ap[ia + 7]);
        c70 = x.fma(b0, c70); c71 = x.fma(b1, c71);
      }
    }
    c00.intoArray(c, o0);
    c01.intoArray(c, o0 + VL);
    c10.intoArray(c, o1);
    c11.intoArray(c, o1 + VL);
    c20.intoArray(c, o2);
    c21.intoArray(c, o2 + VL);
    c30.intoArray(c, o3);
    c31.intoArray(c, o3 + VL);
    c40.intoArray(c, o4);
    c41.intoArray(c, o4 + VL);
    c50.intoArray(c, o5);
    c51.intoArray(c, o5 + VL);
    c60.intoArray(c, o6);
    c61.intoArray(c, o6 + VL);
    c70.intoArray(c, o7);
    c71.intoArray(c, o7 + VL);
  }

  /**
   * C[4 x NR] (+)= A[4 x kc] * Bpanel[kc x NR]: {@link #wide} for a last strip of at most 4 rows
   * (the 4 left of 100 = 12 x 8 + 4), which would otherwise compute 8 rows for 4. It reads the
   * same 8-row packed A strip, whose rows past 4 it ignores.
   */
  static void wide4(float[] ap, int aBase, boolean aRows, float[] bp, int bBase, int kc,
      float[] c, int cBase, int ldc, boolean add) {
    int o0 = cBase, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc;
    FloatVector c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32;
    if (add) {
      c00 = FloatVector.fromArray(S, c, o0);
      c01 = FloatVector.fromArray(S, c, o0 + VL);
      c02 = FloatVector.fromArray(S, c, o0 + 2 * VL);
      c10 = FloatVector.fromArray(S, c, o1);
      c11 = FloatVector.fromArray(S, c, o1 + VL);
      c12 = FloatVector.fromArray(S, c, o1 + 2 * VL);
      c20 = FloatVector.fromArray(S, c, o2);
      c21 = FloatVector.fromArray(S, c, o2 + VL);
      c22 = FloatVector.fromArray(S, c, o2 + 2 * VL);
      c30 = FloatVector.fromArray(S, c, o3);
      c31 = FloatVector.fromArray(S, c, o3 + VL);
      c32 = FloatVector.fromArray(S, c, o3 + 2 * VL);
    } else {
      c00 = FloatVector.zero(S);
      c01 = c00; c02 = c00; c10 = c00; c11 = c00; c12 = c00; c20 = c00; c21 = c00;
      c22 = c00; c30 = c00; c31 = c00; c32 = c00;
    }
    if (aRows) {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia++, ib += 3 * VL) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        FloatVector b1 = FloatVector.fromArray(S, bp, ib + VL);
        FloatVector b2 = FloatVector.fromArray(S, bp, ib + 2 * VL);
        FloatVector x = FloatVector.broadcast(S, ap[ia]);
        c00 = x.fma(b0, c00); c01 = x.fma(b1, c01); c02 = x.fma(b2, c02);
        x = FloatVector.broadcast(S, ap[ia + ROW]);
        c10 = x.fma(b0, c10); c11 = x.fma(b1, c11); c12 = x.fma(b2, c12);
        x = FloatVector.broadcast(S, ap[ia + 2 * ROW]);
        c20 = x.fma(b0, c20); c21 = x.fma(b1, c21); c22 = x.fma(b2, c22);
        x = FloatVector.broadcast(S, ap[ia + 3 * ROW]);
        c30 = x.fma(b0, c30); c31 = x.fma(b1, c31); c32 = x.fma(b2, c32);
      }
    } else {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia += MR, ib += 3 * VL) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        FloatVector b1 = FloatVector.fromArray(S, bp, ib + VL);
        FloatVector b2 = FloatVector.fromArray(S, bp, ib + 2 * VL);
        FloatVector x = FloatVector.broadcast(S, ap[ia]);
        c00 = x.fma(b0, c00); c01 = x.fma(b1, c01); c02 = x.fma(b2, c02);
        x = FloatVector.broadcast(S, ap[ia + 1]);
        c10 = x.fma(b0, c10); c11 = x.fma(b1, c11); c12 = x.fma(b2, c12);
        x = FloatVector.broadcast(S, ap[ia + 2]);
        c20 = x.fma(b0, c20); c21 = x.fma(b1, c21); c22 = x.fma(b2, c22);
        x = FloatVector.broadcast(S, ap[ia + 3]);
        c30 = x.fma(b0, c30); c31 = x.fma(b1, c31); c32 = x.fma(b2, c32);
      }
    }
    c00.intoArray(c, o0);
    c01.intoArray(c, o0 + VL);
    c02.intoArray(c, o0 + 2 * VL);
    c10.intoArray(c, o1);
    c11.intoArray(c, o1 + VL);
    c12.intoArray(c, o1 + 2 * VL);
    c20.intoArray(c, o2);
    c21.intoArray(c, o2 + VL);
    c22.intoArray(c, o2 + 2 * VL);
    c30.intoArray(c, o3);
    c31.intoArray(c, o3 + VL);
    c32.intoArray(c, o3 + 2 * VL);
  }

  /**
   * C[4 x 2VL] (+)= A[4 x kc] * Bpanel[kc x 2VL]: four rows of a full AVX2 panel (NR = 2VL), from
   * the 8-row packed A strip's rows at {@code aBase} (0, or the second half's first row). 8
   * accumulators + 2 B vectors + 4 broadcasts fit AVX2's 16 registers with all four broadcasts
   * loaded ahead, as C2 schedules them.
   */
  static void pair4(float[] ap, int aBase, boolean aRows, float[] bp, int bBase, int kc,
      float[] c, int cBase, int ldc, boolean add) {
    int o0 = cBase, o1 = o0 + ldc, o2 = o1 + ldc, o3 = o2 + ldc;
    FloatVector c00, c01, c10, c11, c20, c21, c30, c31;
    if (add) {
      c00 = FloatVector.fromArray(S, c, o0);
      c01 = FloatVector.fromArray(S, c, o0 + VL);
      c10 = FloatVector.fromArray(S, c, o1);
      c11 = FloatVector.fromArray(S, c, o1 + VL);
      c20 = FloatVector.fromArray(S, c, o2);
      c21 = FloatVector.fromArray(S, c, o2 + VL);
      c30 = FloatVector.fromArray(S, c, o3);
      c31 = FloatVector.fromArray(S, c, o3 + VL);
    } else {
      c00 = FloatVector.zero(S);
      c01 = c00; c10 = c00; c11 = c00; c20 = c00; c21 = c00; c30 = c00; c31 = c00;
    }
    if (aRows) {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia++, ib += 2 * VL) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        FloatVector b1 = FloatVector.fromArray(S, bp, ib + VL);
        FloatVector x = FloatVector.broadcast(S, ap[ia]);
        c00 = x.fma(b0, c00); c01 = x.fma(b1, c01);
        x = FloatVector.broadcast(S, ap[ia + ROW]);
        c10 = x.fma(b0, c10); c11 = x.fma(b1, c11);
        x = FloatVector.broadcast(S, ap[ia + 2 * ROW]);
        c20 = x.fma(b0, c20); c21 = x.fma(b1, c21);
        x = FloatVector.broadcast(S, ap[ia + 3 * ROW]);
        c30 = x.fma(b0, c30); c31 = x.fma(b1, c31);
      }
    } else {
      for (int kk = 0, ia = aBase, ib = bBase; kk < kc; kk++, ia += MR, ib += 2 * VL) {
        FloatVector b0 = FloatVector.fromArray(S, bp, ib);
        FloatVector b1 = FloatVector.fromArray(S, bp, ib + VL);
        FloatVector x = FloatVector.broadcast(S, ap[ia]);
        c00 = x.fma(b0, c00); c01 = x.fma(b1, c01);
        x = FloatVector.broadcast(S, ap[ia + 1]);
        c10 = x.fma(b0, c10); c11 = x.fma(b1, c11);
        x = FloatVector.broadcast(S, ap[ia + 2]);
        c20 = x.fma(b0, c20); c21 = x.fma(b1, c21);
        x = FloatVector.broadcast(S, ap[ia + 3]);
        c30 = x.fma(b0, c30); c31 = x.fma(b1, c31);
      }
    }
    c00.intoArray(c, o0);
    c01.intoArray(c, o0 + VL);
    c10.intoArray(c, o1);
    c11.intoArray(c, o1 + VL);
    c20.intoArray(c, o2);
    c21.intoArray(c, o2 + VL);
    c30.intoArray(c, o3);
    c31.intoArray(c, o3 + VL);
  }
}
