package dev.psflow.tensor;

import java.util.Arrays;

/**
 * The plain-Java paths behind {@link Gemm}, for a JVM started without the Vector API (see
 * {@link VectorSupport}). Package-private; thread-safe: state lives in thread-local scratch.
 *
 * <p>Blocked i-k-j: op(B) is copied a block of at most {@link #KC} x {@link #NC} at a time into
 * contiguous rows (transposing it when it is stored n x k), and each row of C is then built as a
 * sum of scaled rows of that block, {@code C[i, :] += A[i, kk] * Bblock[kk, :]}. The innermost
 * loop walks two arrays contiguously, which C2 unrolls, and the block (512 KiB of floats) stays in
 * L2 while every row of A streams past it. Results equal the vectorized path's to rounding.
 */
final class GemmPlain {
  /** Rows of op(B) per block. */
  static final int KC = 256;
  /** Columns of op(B) per block: one row of C's slice (2 KiB of floats) stays in L1. */
  static final int NC = 512;

  private static final ThreadLocal<float[]> FLOAT_BLOCK =
      ThreadLocal.withInitial(() -> new float[KC * NC]);
  private static final ThreadLocal<double[]> DOUBLE_BLOCK =
      ThreadLocal.withInitial(() -> new double[KC * NC]);

  private GemmPlain() {}

  /** {@code C (+)= op(A) * op(B)} in single precision; arguments as {@link Gemm#sgemm}. */
  static void sgemm(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    if (!accumulate) {
      for (int i = 0; i < m; i++) {
        Arrays.fill(c, cOff + i * ldc, cOff + i * ldc + n, 0f);
      }
    }
    int ars = transA ? 1 : lda, aks = transA ? lda : 1;
    float[] block = FLOAT_BLOCK.get();
    for (int jc = 0; jc < n; jc += NC) {
      int nc = Math.min(NC, n - jc);
      for (int pc = 0; pc < k; pc += KC) {
        int kc = Math.min(KC, k - pc);
        packB(transB, b, bOff, ldb, pc, kc, jc, nc, block);
        for (int i = 0; i < m; i++) {
          int ci = cOff + i * ldc + jc;
          for (int kk = 0, ia = aOff + i * ars + pc * aks, ib = 0; kk < kc;
              kk++, ia += aks, ib += nc) {
            float x = a[ia];
            for (int j = 0; j < nc; j++) {
              c[ci + j] += x * block[ib + j];
            }
          }
        }
      }
    }
  }

  /** {@code C (+)= op(A) * op(B)} in double precision; arguments as {@link Gemm#dgemm}. */
  static void dgemm(boolean transA, boolean transB, int m, int n, int k,
      double[] a, int aOff, int lda, double[] b, int bOff, int ldb,
      double[] c, int cOff, int ldc, boolean accumulate) {
    if (!accumulate) {
      for (int i = 0; i < m; i++) {
        Arrays.fill(c, cOff + i * ldc, cOff + i * ldc + n, 0.0);
      }
    }
    int ars = transA ? 1 : lda, aks = transA ? lda : 1;
    double[] block = DOUBLE_BLOCK.get();
    for (int jc = 0; jc < n; jc += NC) {
      int nc = Math.min(NC, n - jc);
      for (int pc = 0; pc < k; pc += KC) {
        int kc = Math.min(KC, k - pc);
        packB(transB, b, bOff, ldb, pc, kc, jc, nc, block);
        for (int i = 0; i < m; i++) {
          int ci = cOff + i * ldc + jc;
          for (int kk = 0, ia = aOff + i * ars + pc * aks, ib = 0; kk < kc;
              kk++, ia += aks, ib += nc) {
            double x = a[ia];
            for (int j = 0; j < nc; j++) {
              c[ci + j] += x * block[ib + j];
            }
          }
        }
      }
    }
  }

  /** op(B)[pc:pc+kc, jc:jc+nc] as kc contiguous rows of nc. */
  private static void packB(boolean transB, float[] b, int bOff, int ldb, int pc, int kc,
      int jc, int nc, float[] dst) {
    if (!transB) {
      for (int kk = 0; kk < kc; kk++) {
        System.arraycopy(b, bOff + (pc + kk) * ldb + jc, dst, kk * nc, nc);
      }
      return;
    }
    // B stored n x k: read each of its rows contiguously, write down a column of the block.
    for (int j = 0; j < nc; j++) {
      for (int kk = 0, src = bOff + (jc + j) * ldb + pc, d = j; kk < kc; kk++, d += nc) {
        dst[d] = b[src + kk];
      }
    }
  }

  private static void packB(boolean transB, double[] b, int bOff, int ldb, int pc, int kc,
      int jc, int nc, double[] dst) {
    if (!transB) {
      for (int kk = 0; kk < kc; kk++) {
        System.arraycopy(b, bOff + (pc + kk) * ldb + jc, dst, kk * nc, nc);
      }
      return;
    }
    for (int j = 0; j < nc; j++) {
      for (int kk = 0, src = bOff + (jc + j) * ldb + pc, d = j; kk < kc; kk++, d += nc) {
        dst[d] = b[src + kk];
      }
    }
  }
}
