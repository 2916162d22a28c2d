package dev.psflow.tensor;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.LoggerFactory;

/**
 * psflow's own kernels in C ({@code psflow-core/src/main/c/psflow_kernels.c}), for the JVMs that run
 * without C2: a ps task applies its optimizer's updates here, and sums and averages a synchronous step's
 * gradients (a dense ConditionalAccumulator). C1, their only compiler, runs a loop one
 * element at a time; C2, which vectorizes, costs a short-lived task more to compile than it saves.
 * Adam over the replica model's 79,510 parameters (JDK 25, one JVM at C1 only, alternating): 25 µs a
 * step here against 342 µs in {@link dev.psflow.ops.training.ApplyAdam}'s plain-Java loop, with
 * results equal bit for bit.
 *
 * <p>Only a ps's loops are here. A replica worker's ReLUs and batch conversion were too (alternated
 * jobs, 2000 steps): each step's calls saved ~60-80 µs, but linking the downcalls costs a JVM 40-90
 * ms, and the workers' CPU came out 0.05-0.18 s higher in 4 of 4 pairs.
 *
 * <p>psflow-core's build compiles the library with gcc on Linux x86-64 into its jar (as
 * {@link #RESOURCE}); this class copies it to a temporary file, links its functions through the
 * Foreign Function API ({@link ForeignDowncalls}) and deletes the file (the mapping stays). Optional:
 * built without gcc, on another platform, on a JDK before 22 or without native access, or with
 * {@code -Dpsflow.native_kernels=false}, {@link #available()} is false and the kernels' Java loops
 * serve.
 *
 * <p>Thread-safe: the functions keep no state. A critical downcall holds off safepoints while it
 * runs, so long arrays go in pieces of {@link #PIECE} elements (~0.3 ms each).
 */
public final class NativeKernels {
  /** Where the build puts the library among psflow-core's resources. */
  static final String RESOURCE = "/dev/psflow/tensor/native/linux-x86-64/libpsflow_kernels.so";
  /** The most elements one downcall updates. */
  static final int PIECE = 1 << 20;
  /**
   * The fewest elements worth a downcall: below it a downcall's fixed cost (segments, slices, the
   * call; ~0.1-0.2 µs) outweighs what the vector loop saves, and the Java loop serves.
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
    return Holder.ADAM != null;
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
    try {
      Object ws = Holder.segment(w);
      Object outs = wOut == w ? ws : Holder.segment(wOut);
      Object ms = Holder.segment(m);
      Object vs = Holder.segment(v);
      Object gs = Holder.segment(g);
      for (int done = 0; done < len; done += PIECE) {
        int at = off + done;
        Holder.ADAM.invokeExact(Holder.slice(ws, at), Holder.slice(outs, at), Holder.slice(ms, at),
            Holder.slice(vs, at), Holder.slice(gs, gOff + done), Math.min(PIECE, len - done), lrT, beta1, beta2, eps,
            nesterov ? 1 : 0);
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("psflow_apply_adam_f32 through the Foreign Function API", t);
    }
  }

  /** {@code a[i] += b[i]} for i in [0, len): a synchronous step's gradients summed. Only when {@link #available()}. */
  public static void add(float[] a, float[] b, int len) {
    Objects.checkFromIndexSize(0, len, Math.min(a.length, b.length));
    try {
      Object as = Holder.segment(a);
      Object bs = Holder.segment(b);
      for (int done = 0; done < len; done += PIECE) {
        Holder.ADD.invokeExact(Holder.slice(as, done), Holder.slice(bs, done), Math.min(PIECE, len - done));
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("psflow_add_f32 through the Foreign Function API", t);
    }
  }

  /** {@code a[i] /= divisor} for i in [0, len): their mean. Only when {@link #available()}. */
  public static void divide(float[] a, float divisor, int len) {
    Objects.checkFromIndexSize(0, len, a.length);
    try {
      Object as = Holder.segment(a);
      for (int done = 0; done < len; done += PIECE) {
        Holder.DIVIDE.invokeExact(Holder.slice(as, done), divisor, Math.min(PIECE, len - done));
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("psflow_divide_f32 through the Foreign Function API", t);
    }
  }

  /** Loads once, on first use: class initialization makes it thread-safe. */
  private static final class Holder {
    static final MethodHandle OF_ARRAY;
    static final MethodHandle AS_SLICE;
    /** {@code (w, wOut, m, v, g: Object, len: int, lrT, beta1, beta2, eps: float, nesterov: int) void}; or null. */
    static final MethodHandle ADAM;
    /** {@code (a, b: Object, len: int) void}. */
    static final MethodHandle ADD;
    /** {@code (a: Object, divisor: float, len: int) void}. */
    static final MethodHandle DIVIDE;

    static {
      MethodHandle[] handles = load();
      OF_ARRAY = handles == null ? null : handles[0];
      AS_SLICE = handles == null ? null : handles[1];
      ADAM = handles == null ? null : handles[2];
      ADD = handles == null ? null : handles[3];
      DIVIDE = handles == null ? null : handles[4];
    }

    static Object segment(float[] array) throws Throwable {
      return (Object) OF_ARRAY.invokeExact(array);
    }

    static Object slice(Object segment, int offset) throws Throwable {
      return offset == 0 ? segment : (Object) AS_SLICE.invokeExact(segment, offset * (long) Float.BYTES);
    }

    private static MethodHandle[] load() {
      if (!Boolean.parseBoolean(System.getProperty("psflow.native_kernels", "true"))) {
        return null;
      }
      URL url = NativeKernels.class.getResource(RESOURCE);
      if (url == null) {
        LoggerFactory.getLogger(NativeKernels.class).debug("no {} in psflow-core (built without gcc, or not for "
            + "Linux x86-64): kernels in Java", RESOURCE);
        return null;
      }
      Path copy = null;
      try {
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
        Object symbols = ForeignDowncalls.symbols(library);
        return new MethodHandle[] {ForeignDowncalls.ofArray(float[].class), ForeignDowncalls.asSlice(),
            function(symbols, "psflow_apply_adam_f32", Object.class, Object.class, Object.class, Object.class,
                Object.class, int.class, float.class, float.class, float.class, float.class, int.class),
            function(symbols, "psflow_add_f32", Object.class, Object.class, int.class),
            function(symbols, "psflow_divide_f32", Object.class, float.class, int.class)};
      } catch (IOException | URISyntaxException | ReflectiveOperationException | RuntimeException | LinkageError e) {
        if (VectorSupport.AVAILABLE) {
          LoggerFactory.getLogger(NativeKernels.class).debug("psflow's C kernels not linked ({}): kernels in Java",
              e.toString());
        } else {
          // a JVM without C2 (a ps task) is where they matter: say so once
          LoggerFactory.getLogger(NativeKernels.class).warn("psflow's C kernels did not load ({}): the optimizer's "
              + "updates run in plain Java at C1, ~13x slower (a writable java.io.tmpdir and JDK 22 or later with "
              + "--enable-native-access=ALL-UNNAMED let them load)", e.toString());
        }
        return null;
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

    private static MethodHandle function(Object symbols, String name, Class<?>... parameters)
        throws ReflectiveOperationException {
      return ForeignDowncalls.link(symbols, name, MethodType.methodType(void.class, parameters))
          .orElseThrow(() -> new IllegalStateException(name + " is not in " + RESOURCE));
    }
  }
}
