package dev.psflow.tensor;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.LoggerFactory;

/**
 * psflow's own kernels in C ({@code psflow-core/src/main/c/psflow_kernels.c}), for the JVMs that run
 * without C2: a ps task applies its optimizer's updates here, and sums and averages a synchronous
 * step's gradients (a dense ConditionalAccumulator); a replica worker takes its ReLUs, its bias
 * additions and their gradients, its batches' pixels (a batch in one call) and its matrix products'
 * call into OpenBLAS ({@link HeapSgemm}) here. C1, their only compiler, runs a loop one element at a
 * time; C2, which vectorizes, costs a short-lived task more to compile than it saves. Adam over the
 * replica model's 79,510 parameters (JDK 25, one JVM at C1 only, alternating): 25 µs a step here
 * against 342 µs in {@link dev.psflow.ops.training.ApplyAdam}'s plain-Java loop, with results equal
 * bit for bit.
 *
 * <p>Through JNI, on the arrays themselves ({@code GetPrimitiveArrayCritical}: nothing copied). It was
 * the Foreign Function API until linking its downcalls proved to cost more than the calls: ~50 ms
 * of a ps's start and ~40 ms of a worker's (their method handles are spun in the interpreter), which
 * made the worker's kernels here a loss (linking cost what 1000 steps saved); JNI binds a native
 * method by its symbol's name at its first call.
 *
 * <p>psflow-core's build compiles the library with gcc on Linux x86-64 into its jar (as
 * {@link #RESOURCE}); this class copies it to a temporary file, loads it ({@code System.load}) and
 * deletes the file (the mapping stays). Optional: built without gcc (or without a JDK's {@code
 * jni.h}), on another platform, on a JDK whose native access is not enabled for this code (it would
 * print the JDK's restricted-method warning), or with {@code -Dpsflow.native_kernels=false},
 * {@link #available()} is false and the kernels' Java loops serve.
 *
 * <p>Thread-safe: the functions keep no state. A pinned array holds off garbage collection while a
 * call runs, so long arrays go in pieces of {@link #PIECE} elements (~0.3 ms each).
 */
public final class NativeKernels {
  /** Where the build puts the library among psflow-core's resources. */
  static final String RESOURCE = "/dev/psflow/tensor/native/linux-x86-64/libpsflow_kernels.so";
  /** The most elements one call updates. */
  static final int PIECE = 1 << 20;
  /**
   * The fewest elements worth a call: below it a call's fixed cost (the JNI transition and the
   * pinning, ~0.1 µs) outweighs what the vector loop saves, and the Java loop serves.
   */
  public static final int MIN_LENGTH = 256;
  private static final AtomicBoolean BACKGROUND = new AtomicBoolean();

  private NativeKernels() {}

  /**
   * Whether this JVM's large float loops are to go here: it runs without the Vector API's kernels
   * (no C2) and the library loaded (loading it on the first call).
   */
  public static boolean chosen() {
    return !VectorSupport.AVAILABLE && available();
  }

  /** Whether the library loaded in this JVM (loading it on the first call). */
  public static boolean available() {
    return Holder.LOADED;
  }

  /** Starts loading the library on a daemon thread, once per JVM, so that the first update does not wait for it. */
  public static void loadInBackground() {
    if (BACKGROUND.compareAndSet(false, true)) {
      Thread t = new Thread(NativeKernels::available, "psflow-native-kernels-load");
      t.setDaemon(true);
      t.start();
    }
  }

  /**
   * ApplyAdam's float update, element for element what its plain-Java loop computes: elements
   * [off, off + len) of {@code w}, {@code m} and {@code v} with the gradient's [gOff, gOff + len);
   * m and v in place, the variable read from {@code w} and written to {@code wOut} (which may be
   * {@code w}). Only when {@link #available()}.
   */
  public static void applyAdam(float[] w, float[] wOut, float[] m, float[] v, int off, float[] g, int gOff, int len,
      float lrT, float beta1, float beta2, float eps, boolean nesterov) {
    // native code reads and writes where it is told: the bounds are checked here, as Java's loop would
    Objects.checkFromIndexSize(off, len, Math.min(Math.min(w.length, wOut.length), Math.min(m.length, v.length)));
    Objects.checkFromIndexSize(gOff, len, g.length);
    for (int done = 0; done < len; done += PIECE) {
      applyAdam0(w, wOut, m, v, off + done, g, gOff + done, Math.min(PIECE, len - done), lrT, beta1, beta2, eps,
          nesterov);
    }
  }

  /** {@code a[i] += b[i]} for i in [0, len): a synchronous step's gradients summed. Only when {@link #available()}. */
  public static void add(float[] a, float[] b, int len) {
    Objects.checkFromIndexSize(0, len, Math.min(a.length, b.length));
    for (int done = 0; done < len; done += PIECE) {
      add0(a, b, done, Math.min(PIECE, len - done));
    }
  }

  /** {@code a[i] /= divisor} for i in [0, len): their mean. Only when {@link #available()}. */
  public static void divide(float[] a, float divisor, int len) {
    Objects.checkFromIndexSize(0, len, a.length);
    for (int done = 0; done < len; done += PIECE) {
      divide0(a, divisor, done, Math.min(PIECE, len - done));
    }
  }

  /**
   * {@code out[i] = features[i] > 0 ? values[i] : 0} for i in [0, len) (Relu, ReluGrad; a NaN feature
   * gives 0). Only when {@link #available()}.
   */
  public static void wherePositive(float[] features, float[] values, float[] out, int len) {
    Objects.checkFromIndexSize(0, len, Math.min(out.length, Math.min(features.length, values.length)));
    for (int done = 0; done < len; done += PIECE) {
      wherePositive0(features, values, out, done, Math.min(PIECE, len - done));
    }
  }

  /**
   * {@code dst[dstOff + i] = (src[srcOff + i] & 0xff) * scale} for i in [0, n): pixels to floats
   * ({@link UnsignedBytes}). Only when {@link #available()}.
   */
  public static void toScaledFloats(byte[] src, int srcOff, float[] dst, int dstOff, int n, float scale) {
    Objects.checkFromIndexSize(srcOff, n, src.length);
    Objects.checkFromIndexSize(dstOff, n, dst.length);
    for (int done = 0; done < n; done += PIECE) {
      toScaledFloats0(src, srcOff + done, dst, dstOff + done, Math.min(PIECE, n - done), scale);
    }
  }

  /**
   * For i in [0, count): row {@code rows[from + i]} of the {@code rowLength}-byte rows that start at
   * {@code src[first]}, to {@code dst} from {@code dstOff + i * rowLength}, as {@link
   * #toScaledFloats} converts them (a batch of shuffled examples in one call). Only when {@link
   * #available()}.
   */
  public static void gatherScaledFloats(byte[] src, int first, int rowLength, int[] rows, int from, int count,
      float[] dst, int dstOff, float scale) {
    Objects.checkFromIndexSize(from, count, rows.length);
    Objects.checkFromIndexSize(dstOff, (int) Math.min(Integer.MAX_VALUE, (long) count * rowLength), dst.length);
    if (first < 0 || rowLength < 0) {
      throw new IndexOutOfBoundsException("rows of " + rowLength + " bytes from " + first);
    }
    for (int i = from; i < from + count; i++) {
      if (rows[i] < 0 || first + (long) (rows[i] + 1) * rowLength > src.length) {
        throw new IndexOutOfBoundsException("row " + rows[i] + " of " + rowLength + " bytes from " + first
            + " is past the " + src.length + " bytes");
      }
    }
    int piece = rowsPerPiece(Math.max(1, rowLength));
    for (int done = 0; done < count; done += piece) {
      gatherScaledFloats0(src, first, rowLength, rows, from + done, Math.min(piece, count - done), dst,
          dstOff + done * rowLength, scale);
    }
  }

  /**
   * BiasAdd: {@code y[r*cols + j] = x[r*cols + j] + b[j]} for the first {@code n} elements ({@code n}
   * a multiple of {@code cols}). Only when {@link #available()}.
   */
  public static void biasAdd(float[] x, float[] b, float[] y, int n, int cols) {
    checkRows(n, cols, Math.min(x.length, y.length), b.length);
    int piece = rowsPerPiece(cols) * cols;
    for (int done = 0; done < n; done += piece) {
      biasAdd0(x, b, y, done, Math.min(piece, n - done) / cols, cols);
    }
  }

  /**
   * BiasAddGrad: {@code db[j] += g[r*cols + j]} over the rows of the first {@code n} elements, row
   * after row ({@code n} a multiple of {@code cols}). Only when {@link #available()}.
   */
  public static void biasAddGrad(float[] g, float[] db, int n, int cols) {
    checkRows(n, cols, g.length, db.length);
    int piece = rowsPerPiece(cols) * cols;
    for (int done = 0; done < n; done += piece) {
      biasAddGrad0(g, db, done, Math.min(piece, n - done) / cols, cols);
    }
  }

  private static void checkRows(int n, int cols, int length, int colsLength) {
    if (cols <= 0 || n % cols != 0) {
      throw new IllegalArgumentException(n + " elements are no whole rows of " + cols);
    }
    Objects.checkFromIndexSize(0, n, length);
    Objects.checkFromIndexSize(0, cols, colsLength);
  }

  private static int rowsPerPiece(int cols) {
    return Math.max(1, PIECE / cols);
  }

  /**
   * {@code cblas_sgemm} at address {@code sgemm} (OpenBLAS's, {@link HeapSgemm}) on the arrays
   * themselves, row-major: {@code C = alpha op(A) op(B) + beta C}, the operands from their offsets.
   * The caller has checked the shapes against the arrays ({@link Gemm}) and keeps the product short
   * (a collection waits for it). Only when {@link #available()}.
   */
  static void sgemm(long sgemm, int transA, int transB, int m, int n, int k, float alpha, float[] a, int aOff, int lda,
      float[] b, int bOff, int ldb, float beta, float[] c, int cOff, int ldc) {
    sgemm0(sgemm, HeapSgemm.ROW_MAJOR, transA, transB, m, n, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc);
  }

  // The C functions (psflow_kernels.c's Java_dev_psflow_tensor_NativeKernels_*): ranges already checked.
  private static native void applyAdam0(float[] w, float[] wOut, float[] m, float[] v, int off, float[] g, int gOff,
      int len, float lrT, float beta1, float beta2, float eps, boolean nesterov);

  private static native void add0(float[] a, float[] b, int off, int len);

  private static native void divide0(float[] a, float divisor, int off, int len);

  private static native void wherePositive0(float[] features, float[] values, float[] out, int off, int len);

  private static native void toScaledFloats0(byte[] src, int srcOff, float[] dst, int dstOff, int n, float scale);

  private static native void gatherScaledFloats0(byte[] src, int first, int rowLength, int[] rows, int from,
      int count, float[] dst, int dstOff, float scale);

  private static native void biasAdd0(float[] x, float[] b, float[] y, int off, int rows, int cols);

  private static native void biasAddGrad0(float[] g, float[] db, int off, int rows, int cols);

  private static native void sgemm0(long sgemm, int order, int transA, int transB, int m, int n, int k, float alpha,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb, float beta, float[] c, int cOff, int ldc);

  /**
   * Puts every thread of this process, and those it starts later, under Linux's {@code SCHED_BATCH}
   * policy (same priority, no preemption on wake-up); the number of threads moved, 0 where the
   * library is not loaded and -1 where the process's threads could not be listed. For a process
   * that shares its cores with the other tasks of its cluster: under the default policy a task woken
   * by a message preempts whichever task runs on the core, and on two cores shared by a ps and two
   * workers each step became a chain of such preemptions, each a context switch and caches filled
   * with the other process's data. The README's job under {@code chrt -b 0}: 5.62 s on 10.86 s of CPU
   * against 5.95 s on 11.52 s, 9 of 10 alternated pairs shorter (docs/benchmarks.md). On idle cores
   * a woken thread gets a core of its own either way.
   */
  public static int scheduleAsBatch() {
    return available() ? scheduleAsBatch0() : 0;
  }

  private static native int scheduleAsBatch0();

  /** Loads once, on first use: class initialization makes it thread-safe. */
  private static final class Holder {
    static final boolean LOADED = load();

    private static boolean load() {
      if (!Boolean.parseBoolean(System.getProperty("psflow.native_kernels", "true"))) {
        return false;
      }
      URL url = NativeKernels.class.getResource(RESOURCE);
      if (url == null) {
        LoggerFactory.getLogger(NativeKernels.class).debug("no {} in psflow-core (built without gcc, or not for "
            + "Linux x86-64): kernels in Java", RESOURCE);
        return false;
      }
      Path copy = null;
      try {
        if (!nativeAccessEnabled()) {
          throw new IllegalStateException("native access is not enabled for psflow's code "
              + "(--enable-native-access=ALL-UNNAMED)");
        }
        Path library;
        if ("file".equals(url.getProtocol())) {
          library = Path.of(url.toURI());
        } else {
          copy = Files.createTempFile("psflow_kernels", ".so");
          copy.toFile().deleteOnExit(); // should the JVM exit before the delete below (a task that fails at start)
          // into the file createTempFile made (owner-only), not a new one in its place
          try (InputStream in = url.openStream(); OutputStream out = Files.newOutputStream(copy)) {
            in.transferTo(out);
          }
          library = copy;
        }
        System.load(library.toAbsolutePath().toString());
        divide0(new float[1], 1f, 0, 1); // binds now: a library without the JNI functions fails here, not in a step
        return true;
      } catch (IOException | URISyntaxException | RuntimeException | LinkageError e) {
        if (VectorSupport.AVAILABLE) {
          LoggerFactory.getLogger(NativeKernels.class).debug("psflow's C kernels not loaded ({}): kernels in Java",
              e.toString());
        } else {
          // a JVM without C2 (a ps task) is where they matter: say so once
          LoggerFactory.getLogger(NativeKernels.class).warn("psflow's C kernels did not load ({}): the optimizer's "
              + "updates, ReLUs, bias additions and pixel conversions run in plain Java at C1 (Adam ~13x slower), "
              + "and matrix products through JavaCPP's copies (a writable java.io.tmpdir and, on JDK 22 or later, "
              + "--enable-native-access=ALL-UNNAMED let them load)", e.toString());
        }
        return false;
      } finally {
        if (copy != null) {
          try {
            Files.deleteIfExists(copy); // the loaded library stays mapped
          } catch (IOException e) {
            copy.toFile().deleteOnExit();
          }
        }
      }
    }

    /**
     * Whether this code may load a library without the JDK's restricted-method warning: JDK 22 and
     * later say so ({@code Module.isNativeAccessEnabled}); JDK 21 has no such restriction on JNI.
     */
    private static boolean nativeAccessEnabled() {
      try {
        return Boolean.TRUE.equals(Module.class.getMethod("isNativeAccessEnabled").invoke(NativeKernels.class.getModule()));
      } catch (NoSuchMethodException jdk21) {
        return true;
      } catch (ReflectiveOperationException e) {
        return false;
      }
    }
  }
}
