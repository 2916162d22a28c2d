package dev.psflow.tensor;

/**
 * Dense matrix multiply on row-major arrays: {@code C = op(A) * op(B)}, or {@code C += ...} when
 * {@code accumulate} is set. It is the math backend meant for MatMul and its gradients: the Vector
 * API when the JVM has it and C2 (run with {@code --add-modules jdk.incubator.vector}), plain Java
 * otherwise (see {@link VectorSupport}), OpenBLAS in a JVM without C2 where its natives are.
 *
 * <p>op(A) is m x k, stored k x m when {@code transA}; op(B) is k x n, stored n x k when
 * {@code transB}; C is m x n. Each matrix starts at its offset and has a leading dimension (the
 * distance between consecutive stored rows) at least its stored width, so sub-matrices of larger
 * arrays can be used directly. Arguments that would reach outside an array fail at once with
 * {@link IllegalArgumentException}.
 *
 * <p>In a JVM without C2 ({@code -XX:TieredStopAtLevel=1}, as psflow starts the workers of a
 * distributed job), products large enough to pack go to OpenBLAS instead ({@link NativeBlas}),
 * when its natives load.
 *
 * <p>The float path follows GotoBLAS: K is cut into balanced blocks of at most 256, op(B) is
 * packed into panels of three vectors' width (48 columns on AVX-512, 24 on AVX2), each 8-row
 * strip of op(A) is packed next to it, and a micro-kernel keeps its 8 x 48 tile of C in
 * registers while it streams both (narrower kernels take the last panel and a short last strip). Products too small to repay packing take a scalar loop.
 * Without the Vector API, larger products take {@link GemmPlain}'s blocked i-k-j loops instead:
 * the same results to rounding, several times slower.
 *
 * <p>Thread-safety: thread-safe. A product of a few million multiply-adds or more is split into
 * blocks of rows or columns over {@link IntraOpThreads} (the caller runs one block, and any block
 * no other thread has taken); smaller ones run on the calling thread. Each thread packs into
 * thread-local scratch that grows to the largest shape seen, so steady-state calls do not
 * allocate. That holds per thread: call it from long-lived (pooled) threads, since each new
 * thread, virtual ones included, allocates its own scratch (up to ~1 MiB) on first use. Calls
 * whose output C overlaps A or B are not supported.
 *
 * <pre>{@code
 * float[] x = new float[100 * 784], w = new float[784 * 100], y = new float[100 * 100];
 * Gemm.sgemm(false, false, 100, 100, 784, x, 0, 784, w, 0, 100, y, 0, 100, false); // y = x.w
 * float[] dw = new float[784 * 100];
 * Gemm.sgemm(true, false, 784, 100, 100, x, 0, 784, y, 0, 100, dw, 0, 100, false); // dw = xT.y
 * }</pre>
 */
public final class Gemm {
  /** Below this many multiply-adds, packing costs more than it saves. */
  private static final long SMALL = 4096;
  /**
   * Multiply-adds per thread below which a product stays on its calling thread: about 30 us of
   * kernel, against the few microseconds of handing a block to another thread.
   */
  private static final long PARALLEL = 2_000_000;
  /**
   * Multiply-adds per part below which a product on OpenBLAS stays whole on its calling thread
   * (~0.15 ms of its kernel here). Each part packs its own copy of the operand the parts share, so
   * the replica model's products at 100 hidden units (7.8 million) stay whole, where two parts
   * bought nothing; at 1600 (125 million) OpenBLAS on one thread made psflow's local step half as
   * fast as TensorFlow's on two (docs/benchmarks.md).
   */
  private static final long NATIVE_PARALLEL = 8_000_000;
  /** Rows and columns of a block: whole micro-kernel strips (8 rows) and panels (three vectors). */
  private static final int ROW_GRAIN = 8;
  private static final int COLUMN_GRAIN = VectorSupport.AVAILABLE ? GemmMicroKernel.NR : 16;
  /**
   * Whether products large enough to pack go to OpenBLAS ({@link NativeBlas}), on their calling
   * thread, when the natives load (Linux x86-64): in a JVM without C2, where psflow's own kernels
   * would run as C1 code, and in one with C2 too unless {@code -Dpsflow.gemm=java}. With C2,
   * OpenBLAS on one thread beat psflow's kernels split over two: {@code psflow mnist}, 2000 steps,
   * 5 alternated pairs, 1.17x the steps/sec on 0.83x the CPU, and no kernel warm-up to run
   * (docs/benchmarks.md). Elsewhere, and for the tests of the kernels themselves, psflow's own.
   */
  private static final boolean NATIVE = NativeBlas.chosen() && NativeBlas.available();

  private Gemm() {}

  /**
   * Shapes {m, k, n} whose products, each taken as C = A·B, Aᵀ·C and C·Bᵀ, run every path of
   * this machine's float kernels: whole tiles and panels; a last strip of 4 rows and of fewer;
   * two K blocks, the second adding to C; and every kind of last panel (one vector wide, filled
   * or with half its columns, two vectors wide where a full panel is three, and a full-width
   * panel wider than its block), both as n and, for C·Bᵀ, as k. A warm-up that runs them all in
   * every round gives the JIT a profile with every branch in it;
   * a path it never took would be compiled as a trap, and the first real product to take it
   * would throw the compiled driver away (seen: a transposed B's last panel of 4 columns, which
   * the 100-unit layer's gradient has on AVX2, deoptimized the driver at the first step).
   */
  public static int[][] warmUpShapes() {
    if (!VectorSupport.AVAILABLE) {
      return new int[][] {{16, 96, 96}}; // GemmPlain has one path
    }
    int vl = GemmMicroKernel.VL;
    int nr = GemmMicroKernel.NR;
    int half = vl / 2;
    int twoBlocks = (GemmMicroKernel.ROW / nr + 1) * nr + half; // > 256, and leaves a half panel
    return new int[][] {
        {16, 2 * nr, 2 * nr},
        {12, twoBlocks, nr + half},
        {13, nr + 2 * vl, vl + 2},
        {17, 2 * nr + vl, vl},
        {24, nr - 1, nr - 1},
    };
  }

  /** Single-precision {@code C (+)= op(A) * op(B)}; see the class comment for the layout. */
  public static void sgemm(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    checkArgs(transA, transB, m, n, k, a.length, aOff, lda, b.length, bOff, ldb,
        c.length, cOff, ldc);
    if (m == 0 || n == 0) {
      return;
    }
    long work = (long) m * n * k;
    if (onOpenBlas(work)) { // k > 0: OpenBLAS refuses a leading dimension of 0
      sgemmOnOpenBlas(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
      return;
    }
    int parts = work < PARALLEL ? 1 : (int) Math.min(IntraOpThreads.THREADS, work / PARALLEL);
    sgemmInParts(parts, false, transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
  }

  /**
   * {@code C = op(A) * op(B)} into a C that holds only +0, as a new array does: a kernel's output.
   * OpenBLAS then adds the product to C (beta = 1) instead of first zeroing it in a pass of its own
   * (beta = 0, 2.6% of a local step's CPU): the same result bit for bit, since with beta = 0 its
   * kernel adds the same sums, in the same order, to the C it has just zeroed. psflow's own kernels
   * overwrite C (accumulate = false), which costs them less than adding to it.
   */
  public static void sgemmIntoZeros(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb, float[] c, int cOff, int ldc) {
    sgemm(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, onOpenBlas((long) m * n * k));
  }

  /**
   * The product on OpenBLAS: in blocks over {@link IntraOpThreads} from 16 million multiply-adds,
   * but only where {@link HeapSgemm} takes it, on the arrays themselves: JNI's path copies all of C
   * in and back out, so two blocks of one C written that way would each put back the other's stale
   * half.
   */
  static void sgemmOnOpenBlas(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb, float[] c, int cOff, int ldc, boolean accumulate) {
    long work = (long) m * n * k;
    int parts = HeapSgemm.available() && work <= HeapSgemm.MAX_WORK
        ? (int) Math.min(IntraOpThreads.THREADS, work / NATIVE_PARALLEL) : 1;
    sgemmInParts(parts, true, transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
  }

  /** Whether {@link #sgemm} sends a product of {@code work} multiply-adds to OpenBLAS. */
  private static boolean onOpenBlas(long work) {
    return NATIVE && work >= SMALL;
  }

  /**
   * The product in at most {@code parts} blocks of rows or of columns, on {@link IntraOpThreads}.
   * On psflow's own kernels every element of C is computed exactly as in one block (same K
   * blocks, same kernels), so the result does not depend on the split. Rows when op(A) is the
   * taller operand (each block then packs its own copy of the smaller op(B)), columns otherwise;
   * blocks are whole kernel strips or panels, so no block adds a partial panel the whole product
   * would not have. Each block goes to OpenBLAS when {@code onOpenBlas}, whose kernels sum each
   * element of C over K in the same blocks and order whatever rows or columns of C a call covers
   * on some CPUs (AVX-512's Cooperlake kernels) but not on others: on Zen 3 (its ZEN kernels)
   * 3-6% of a split product's elements differ from one call's in their last bits, as they would
   * with another thread count (GemmSplitTest checks them against float's error bound).
   */
  static void sgemmInParts(int parts, boolean onOpenBlas, boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    boolean rows = m > n;
    int extent = rows ? m : n;
    int grain = rows ? ROW_GRAIN : COLUMN_GRAIN;
    long perRowOrColumn = (long) (rows ? n : m) * k;
    int step;
    int blocks;
    // Fewer blocks while the last would be small enough for the scalar path: it rounds differently.
    do {
      step = Math.ceilDiv(Math.ceilDiv(extent, Math.max(1, parts)), grain) * grain;
      blocks = Math.ceilDiv(extent, step);
      parts = blocks - 1;
    } while (blocks > 1 && (extent - (long) (blocks - 1) * step) * perRowOrColumn < SMALL);
    if (blocks <= 1) {
      sgemmBlock(onOpenBlas, transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
      return;
    }
    int blockSize = step;
    IntraOpThreads.run(blocks, block -> {
      int from = block * blockSize;
      int size = Math.min(blockSize, extent - from);
      if (rows) {
        sgemmBlock(onOpenBlas, transA, transB, size, n, k, a, aOff + (transA ? from : from * lda), lda,
            b, bOff, ldb, c, cOff + from * ldc, ldc, accumulate);
      } else {
        sgemmBlock(onOpenBlas, transA, transB, m, size, k, a, aOff, lda, b, bOff + (transB ? from * ldb : from), ldb,
            c, cOff + from, ldc, accumulate);
      }
    });
  }

  private static void sgemmBlock(boolean onOpenBlas, boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    if (onOpenBlas) {
      NativeBlas.sgemm(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
    } else {
      sgemmOnThisThread(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
    }
  }

  private static void sgemmOnThisThread(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    if ((long) m * n * k < SMALL) {
      scalar(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
    } else if (VectorSupport.AVAILABLE) {
      GemmFloat.sgemm(GemmPacking.SCRATCH.get(), transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb,
          c, cOff, ldc, accumulate);
    } else {
      GemmPlain.sgemm(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc,
          accumulate);
    }
  }

  /**
   * Double-precision {@code C (+)= op(A) * op(B)}, same contract as {@link #sgemm}. Vectorized
   * but simpler than the float path: it serves numerical checks, not the training hot path.
   */
  public static void dgemm(boolean transA, boolean transB, int m, int n, int k,
      double[] a, int aOff, int lda, double[] b, int bOff, int ldb,
      double[] c, int cOff, int ldc, boolean accumulate) {
    checkArgs(transA, transB, m, n, k, a.length, aOff, lda, b.length, bOff, ldb,
        c.length, cOff, ldc);
    if (m == 0 || n == 0) {
      return;
    }
    if (VectorSupport.AVAILABLE) {
      GemmDouble.run(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc,
          accumulate);
    } else {
      GemmPlain.dgemm(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc,
          accumulate);
    }
  }

  private static void scalar(boolean transA, boolean transB, int m, int n, int k,
      float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
      float[] c, int cOff, int ldc, boolean accumulate) {
    int ars = transA ? 1 : lda, aks = transA ? lda : 1;
    int bks = transB ? 1 : ldb, bjs = transB ? ldb : 1;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        float sum = 0f;
        for (int kk = 0, ia = aOff + i * ars, ib = bOff + j * bjs; kk < k;
            kk++, ia += aks, ib += bks) {
          sum += a[ia] * b[ib];
        }
        int ic = cOff + i * ldc + j;
        c[ic] = accumulate ? c[ic] + sum : sum;
      }
    }
  }

  private static void checkArgs(boolean transA, boolean transB, int m, int n, int k,
      int aLen, int aOff, int lda, int bLen, int bOff, int ldb, int cLen, int cOff, int ldc) {
    if (m < 0 || n < 0 || k < 0) {
      throw new IllegalArgumentException(
          "gemm dimensions must be >= 0, got m=" + m + " n=" + n + " k=" + k);
    }
    checkMatrix("A", transA ? k : m, transA ? m : k, aLen, aOff, lda);
    checkMatrix("B", transB ? n : k, transB ? k : n, bLen, bOff, ldb);
    checkMatrix("C", m, n, cLen, cOff, ldc);
  }

  /** A stored rows x cols matrix must fit its array: ld >= cols and the last row in bounds. */
  private static void checkMatrix(String name, int rows, int cols, int len, int off, int ld) {
    if (off < 0 || ld < Math.max(1, cols)) {
      throw new IllegalArgumentException(name + ": need offset >= 0 and leading dimension >= "
          + Math.max(1, cols) + " (stored " + rows + "x" + cols + "), got offset=" + off
          + " ld=" + ld);
    }
    if (rows > 0 && cols > 0 && (long) off + (long) (rows - 1) * ld + cols > len) {
      throw new IllegalArgumentException(name + ": stored " + rows + "x" + cols + " at offset "
          + off + " with ld=" + ld + " needs " + ((long) off + (long) (rows - 1) * ld + cols)
          + " elements, array has " + len);
    }
  }
}
