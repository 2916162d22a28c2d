package dev.psflow.bench;

import dev.psflow.bench.GemmBenchmark.Problem;
import dev.psflow.tensor.NativeBlas;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.openblas.global.openblas_nolapack;

/**
 * OpenBLAS's sgemm on one thread, the reference {@link GemmGflops} times psflow's kernel against.
 * It is bytedeco's build of OpenBLAS from Maven Central (natives for Linux x86-64 here), which
 * picks its kernels for the CPU at load, as a system OpenBLAS does. The operands are copied once
 * into native memory, so the figure is OpenBLAS's own kernel, with no JNI array copy per call.
 */
final class OpenBlasSgemm {
  private static final String UNAVAILABLE = load();

  private OpenBlasSgemm() {}

  /** Why OpenBLAS cannot run here (no natives for this platform), or null when it can. */
  static String unavailable() {
    return UNAVAILABLE;
  }

  /** {@code p}'s product by OpenBLAS: C = op(A)·op(B), row-major, as {@link Problem#gemm} computes it. */
  static Runnable of(Problem p) {
    FloatPointer a = new FloatPointer(p.a());
    FloatPointer b = new FloatPointer(p.b());
    FloatPointer c = new FloatPointer(p.c().length);
    int transA = p.transA() ? openblas_nolapack.CblasTrans : openblas_nolapack.CblasNoTrans;
    int transB = p.transB() ? openblas_nolapack.CblasTrans : openblas_nolapack.CblasNoTrans;
    int lda = p.transA() ? p.m() : p.k();
    int ldb = p.transB() ? p.k() : p.n();
    return () -> openblas_nolapack.cblas_sgemm(openblas_nolapack.CblasRowMajor, transA, transB, p.m(), p.n(), p.k(),
        1f, a, lda, b, ldb, 0f, c, p.n());
  }

  private static String load() {
    // One thread, as psflow's kernel: psflow-core loads OpenBLAS so for a worker without C2.
    return NativeBlas.available() ? null
        : "OpenBLAS did not load on " + System.getProperty("os.name") + "/" + System.getProperty("os.arch")
            + " (NativeBlas's warning says why)";
  }
}
