package dev.psflow.tensor;

import org.slf4j.LoggerFactory;

/**
 * OpenBLAS's {@code cblas_sgemm} called on the operands' own heap arrays, through psflow's C kernels
 * ({@link NativeKernels#sgemm}: JNI, the arrays pinned, not copied) at the address JavaCPP's loader
 * has for the symbol, so nothing is copied on the way in or out.
 *
 * <p>Why: JavaCPP's JNI binding ({@link NativeBlas}'s other path) copies each array into native
 * memory before the call and C back after it (Get/ReleaseFloatArrayElements), a fresh malloc of
 * up to 313 KB per operand per product. In a replica worker's profile those copies were 17% of
 * the products' time (3.4% of the worker's CPU). At C1 only, worker-shaped products
 * ([100,784]x[784,100] and its gradient [784,100]^T x [100,100]) took 500–650 µs a pair on the
 * arrays themselves; through JavaCPP's copies 1,200–1,330 µs at first and 570–770 µs once glibc's
 * malloc had adapted to the copies. {@code psflow mnist} at C1 trained 1.26x the steps/sec
 * (docs/benchmarks.md). (This was a Foreign Function API downcall until linking it proved to cost a
 * worker ~40 ms of its start: {@link NativeKernels}.)
 *
 * <p>Missing where psflow's C kernels are ({@link NativeKernels#available()}: built without gcc,
 * another platform, native access not enabled for this code), or where the symbol is not loaded;
 * {@link NativeBlas} then takes JavaCPP's path.
 *
 * <p>A pinned array holds off garbage collection while the product runs: a collection waits for the
 * product in flight. So only products up to {@link #MAX_WORK} multiply-adds come here (a few
 * milliseconds at most; the replica example's are 7.8 million, a few hundred microseconds); a larger
 * one takes the copying path, where the copies are a small part of its time and the other threads'
 * collections need not wait for it.
 */
final class HeapSgemm {
  /** The most multiply-adds ({@code m*n*k}) of a product called here: 2^27, ~3 ms on one core at 100 GFLOP/s. */
  static final long MAX_WORK = 1L << 27;

  // cblas's enums, as in cblas.h
  static final int ROW_MAJOR = 101;
  private static final int NO_TRANS = 111;
  private static final int TRANS = 112;

  /** {@code cblas_sgemm}'s address in OpenBLAS, or 0 where this path is not open. */
  private static final long SGEMM = address();

  private HeapSgemm() {}

  /** Whether the path is open; only after {@link NativeBlas#available()} has loaded OpenBLAS. */
  static boolean available() {
    return SGEMM != 0;
  }

  /** {@link NativeBlas#sgemm}'s contract; only when {@link #available()}. */
  static void sgemm(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    NativeKernels.sgemm(SGEMM, transA ? TRANS : NO_TRANS, transB ? TRANS : NO_TRANS, m, n, k, 1f, a, aOff, lda,
        b, bOff, ldb, accumulate ? 1f : 0f, c, cOff, ldc);
  }

  private static long address() {
    if (!Boolean.parseBoolean(System.getProperty("psflow.blas.heap", "true")) || !NativeKernels.available()) {
      return 0;
    }
    try {
      // the symbol in the libraries JavaCPP loaded for OpenBLAS
      org.bytedeco.javacpp.Pointer symbol = org.bytedeco.javacpp.Loader.addressof("cblas_sgemm");
      return symbol == null ? 0 : symbol.address();
    } catch (RuntimeException | LinkageError e) {
      LoggerFactory.getLogger(HeapSgemm.class).debug("cblas_sgemm's address not found: {}", e.toString());
      return 0;
    }
  }
}
