package dev.psflow.tensor;

import java.nio.FloatBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.openblas.global.openblas_nolapack;
import org.slf4j.LoggerFactory;

/**
 * OpenBLAS's single-precision GEMM, for a JVM that runs without C2: bytedeco's build from Maven
 * Central ({@code org.bytedeco:openblas}, natives for Linux x86-64 in its {@code linux-x86_64}
 * jar), loaded through JavaCPP and called on one thread: through psflow's C kernels on the arrays
 * themselves where they load ({@link HeapSgemm}), else through JavaCPP's JNI binding.
 *
 * <p>Why: psflow's own GEMM is Vector API code, as fast as OpenBLAS here once C2 has compiled it
 * and a hundred times slower before. A worker of a distributed job spent about half its CPU
 * compiling (C2 for its kernels, C1 twice over, profiled then final, for everything else),
 * seconds of a 2000-step job on cores its ps and the other worker train on. A worker at C1 only
 * compiles everything once, and needs a GEMM that is fast without the JIT: this one. A JVM with
 * C2 keeps psflow's own kernel ({@link Gemm}), which needs no copy of its operands.
 *
 * <p>Optional: where the natives are missing (another platform, a class path without them),
 * {@link #available()} is false, says why once in the log, and {@link Gemm} runs its Java paths.
 * Loading takes about 0.2 s (JavaCPP unpacks the library once into {@code ~/.javacpp/cache}), so
 * a worker starts it beside its other start-up work ({@link #loadInBackground()}).
 *
 * <p>Thread-safe: OpenBLAS's GEMM is reentrant and runs on the calling thread (one OpenBLAS
 * thread, set at load: on 2 cores a second one only fights the other processes). {@link Gemm}
 * splits a large product into calls on the intra-op threads, each writing its own block of C, which
 * only {@link HeapSgemm}'s path allows: JNI's copies all of C in and back out.
 */
public final class NativeBlas {
  private static final AtomicBoolean BACKGROUND = new AtomicBoolean();

  private NativeBlas() {}

  /** Whether OpenBLAS's natives loaded in this JVM (loading them on the first call). */
  public static boolean available() {
    return Holder.LOADED;
  }

  /**
   * Whether this JVM's matrix products are to go to OpenBLAS (where it loads), without loading it:
   * always without C2, and with C2 unless {@code -Dpsflow.gemm=java} keeps psflow's own kernels.
   */
  public static boolean chosen() {
    return !VectorSupport.C2_COMPILES || !"java".equals(System.getProperty("psflow.gemm"));
  }

  /** Starts loading the natives on a daemon thread, once per JVM, so that the first product does not wait for it. */
  public static void loadInBackground() {
    if (BACKGROUND.compareAndSet(false, true)) {
      Thread t = new Thread(NativeBlas::available, "psflow-native-blas-load");
      t.setDaemon(true);
      t.start();
    }
  }

  /**
   * {@code C (+)= op(A) * op(B)} with {@link Gemm#sgemm}'s contract (row-major, offsets, leading
   * dimensions), arguments already checked. Only when {@link #available()}.
   */
  static void sgemm(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    if (HeapSgemm.available() && (long) m * n * k <= HeapSgemm.MAX_WORK) {
      HeapSgemm.sgemm(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
    } else {
      sgemmThroughJni(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
    }
  }

  /**
   * {@link #sgemm} through JavaCPP's binding: where {@link HeapSgemm}'s path is not open (psflow's C
   * kernels not built or not loaded), and for products over {@link HeapSgemm#MAX_WORK}.
   */
  static void sgemmThroughJni(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    // JavaCPP passes a heap buffer's array from its offset; JNI copies each array in and back
    // (Get/ReleaseFloatArrayElements), ~17% of the products' time in a worker's profile.
    openblas_nolapack.cblas_sgemm(openblas_nolapack.CblasRowMajor,
        transA ? openblas_nolapack.CblasTrans : openblas_nolapack.CblasNoTrans,
        transB ? openblas_nolapack.CblasTrans : openblas_nolapack.CblasNoTrans,
        m, n, k, 1f, FloatBuffer.wrap(a, aOff, a.length - aOff), lda,
        FloatBuffer.wrap(b, bOff, b.length - bOff), ldb, accumulate ? 1f : 0f,
        FloatBuffer.wrap(c, cOff, c.length - cOff), ldc);
  }

  /** Loads once, on first use of {@link #available()}: class initialization makes it thread-safe. */
  private static final class Holder {
    static final boolean LOADED = load();

    private static boolean load() {
      try {
        org.bytedeco.openblas.presets.openblas_nolapack.blas_set_num_threads(1);
        HeapSgemm.available(); // loads psflow's C kernels here, off the first product's path when loading in the background
        return true;
      } catch (LinkageError | RuntimeException e) {
        if (VectorSupport.C2_COMPILES) {
          // psflow's own kernels, compiled by C2, take the products: what runs wherever bytedeco ships no natives
          LoggerFactory.getLogger(NativeBlas.class).debug("OpenBLAS did not load on {}/{} ({}): products on psflow's "
              + "own kernels", System.getProperty("os.name"), System.getProperty("os.arch"), e.toString());
        } else {
          LoggerFactory.getLogger(NativeBlas.class).warn("OpenBLAS did not load on {}/{} ({}): matrix products "
              + "without C2 run in plain Java, many times slower; give this JVM C2 back with a later "
              + "-XX:TieredStopAtLevel=4 (bin/psflow: PSFLOW_JIT=c2, which adds the Vector API's module too)",
              System.getProperty("os.name"), System.getProperty("os.arch"), e.toString());
        }
        return false;
      }
    }
  }
}
