package dev.psflow.tensor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * OpenBLAS's {@code cblas_sgemm} called through the Foreign Function API on the operands' own
 * heap arrays: a critical downcall that may read and write the Java heap
 * ({@code Linker.Option.critical(true)}, JDK 22 and later), so nothing is copied on the way in or
 * out.
 *
 * <p>Why: JavaCPP's JNI binding ({@link NativeBlas}'s other path) copies each array into native
 * memory before the call and C back after it (Get/ReleaseFloatArrayElements), a fresh malloc of
 * up to 313 KB per operand per product. In a replica worker's profile those copies were 17% of
 * the products' time (3.4% of the worker's CPU). At C1 only, worker-shaped products
 * ([100,784]x[784,100] and its gradient [784,100]^T x [100,100]) took 500–650 µs a pair through
 * this call; through JNI 1,200–1,330 µs at first and 570–770 µs once glibc's malloc had adapted to
 * the copies. {@code psflow mnist} at C1 trained 1.26x the steps/sec (docs/benchmarks.md).
 *
 * <p>Linked reflectively ({@link ForeignDowncalls}): the project compiles for Java 21. Missing on a JDK
 * before 22, where native access is not enabled for this code (it would only
 * print the JDK's restricted-method warning), or where the symbol is not loaded;
 * {@link NativeBlas} then takes JavaCPP's path.
 *
 * <p>A critical downcall holds off safepoints while it runs, as JNI's critical array access does:
 * a garbage collection waits for the product in flight. So only products up to {@link #MAX_WORK}
 * multiply-adds come here (a few milliseconds at most; the replica example's are 7.8 million, a few
 * hundred microseconds); a larger one takes the copying path, where the copies are a small part
 * of its time and the other threads' collections need not wait for it.
 */
final class HeapSgemm {
  /** The most multiply-adds ({@code m*n*k}) of a product called here: 2^27, ~3 ms on one core at 100 GFLOP/s. */
  static final long MAX_WORK = 1L << 27;

  // cblas's enums, as in cblas.h
  private static final int ROW_MAJOR = 101;
  private static final int NO_TRANS = 111;
  private static final int TRANS = 112;

  /**
   * {@code (int order, int transA, int transB, int m, int n, int k, float alpha, Object a, int lda,
   * Object b, int ldb, float beta, Object c, int ldc) void}, each Object a heap segment; or null.
   */
  private static final MethodHandle SGEMM;
  /** {@code MemorySegment.ofArray(float[])}, as {@code (float[]) Object}. */
  private static final MethodHandle OF_ARRAY;
  /** {@code MemorySegment.asSlice(long)}, as {@code (Object, long) Object}. */
  private static final MethodHandle AS_SLICE;

  static {
    MethodHandle[] handles = link();
    SGEMM = handles == null ? null : handles[0];
    OF_ARRAY = handles == null ? null : handles[1];
    AS_SLICE = handles == null ? null : handles[2];
  }

  private HeapSgemm() {}

  /** Whether the downcall is linked; only after {@link NativeBlas#available()} has loaded OpenBLAS. */
  static boolean available() {
    return SGEMM != null;
  }

  /** {@link NativeBlas#sgemm}'s contract; only when {@link #available()}. */
  static void sgemm(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    try {
      SGEMM.invokeExact(ROW_MAJOR, transA ? TRANS : NO_TRANS, transB ? TRANS : NO_TRANS, m, n, k,
          1f, segment(a, aOff), lda, segment(b, bOff), ldb, accumulate ? 1f : 0f, segment(c, cOff), ldc);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("cblas_sgemm through the Foreign Function API", t);
    }
  }

  private static Object segment(float[] array, int offset) throws Throwable {
    Object whole = (Object) OF_ARRAY.invokeExact(array);
    return offset == 0 ? whole : (Object) AS_SLICE.invokeExact(whole, offset * (long) Float.BYTES);
  }

  /** The downcall, ofArray and asSlice, adapted to types Java 21 can name; null where they cannot be linked. */
  private static MethodHandle[] link() {
    if (!Boolean.parseBoolean(System.getProperty("psflow.blas.ffm", "true"))) {
      return null;
    }
    try {
      // the loader's libraries: JavaCPP's System.load of OpenBLAS
      Optional<MethodHandle> sgemm = ForeignDowncalls.link(ForeignDowncalls.symbols(null), "cblas_sgemm",
          MethodType.methodType(void.class,
          int.class, int.class, int.class, int.class, int.class, int.class, float.class, Object.class, int.class,
          Object.class, int.class, float.class, Object.class, int.class));
      return sgemm.isEmpty() ? null
          : new MethodHandle[] {sgemm.get(), ForeignDowncalls.ofArray(float[].class), ForeignDowncalls.asSlice()};
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      // a JDK before 22 (no critical option, no isNativeAccessEnabled): JavaCPP's path serves
      LoggerFactory.getLogger(HeapSgemm.class).debug("cblas_sgemm through the Foreign Function API not linked: {}",
          e.toString());
      return null;
    }
  }
}
