package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks sgemm and dgemm against a naive triple loop in double precision. Shapes are written
 * M x K x N (op(A) is M x K, op(B) is K x N); each runs with all four transpose combinations,
 * with and without accumulate, inside larger arrays (offsets, padded leading dimensions) whose
 * padding must stay untouched. The same cases run through the plain-Java path that JVMs without
 * the Vector API take ({@link GemmPlain}), called directly.
 */
class GemmTest {
  private static final float SENTINEL = -12345f;

  /** An sgemm implementation under test; same arguments as {@link Gemm#sgemm}. */
  @FunctionalInterface
  private interface FloatGemm {
    void run(boolean transA, boolean transB, int m, int n, int k, float[] a, int aOff, int lda,
        float[] b, int bOff, int ldb, float[] c, int cOff, int ldc, boolean accumulate);
  }

  /** A dgemm implementation under test; same arguments as {@link Gemm#dgemm}. */
  @FunctionalInterface
  private interface DoubleGemm {
    void run(boolean transA, boolean transB, int m, int n, int k, double[] a, int aOff, int lda,
        double[] b, int bOff, int ldb, double[] c, int cOff, int ldc, boolean accumulate);
  }

  static List<Arguments> cases() {
    // Cheap blocked shapes first, so the kernels are compiled before the large ones run.
    int[][] shapes = {
        {1, 1, 1}, {7, 13, 5}, {0, 5, 3}, {4, 0, 6}, {50, 7, 3}, {33, 1, 70}, {16, 16, 16},
        {17, 33, 19}, {8, 256, 48}, {3, 40, 200}, {9, 300, 50}, {100, 100, 10}, {9, 20, 1100},
        {33, 513, 50}, {100, 100, 304}, {100, 784, 100},
        // Last panels of every width (on AVX-512: 8, 16, 32 and a cut 48), each filled exactly
        // and cut short, with M off the 8-row strips and K past one block.
        {13, 300, 56}, {8, 64, 80}, {12, 17, 9}, {1, 600, 97}, {20, 1, 33}, {9, 258, 75},
        // Strips of at most 4 rows take a 4-row kernel: exactly 4, fewer, and after full strips.
        {4, 20, 96}, {3, 300, 100}, {12, 40, 150},
        // A cut last panel packed overlapping the one before (GemmPacking.panelShift): stored
        // straight into C by full strips, via the C tile by short strips and later K blocks.
        {100, 10, 52}, {13, 300, 90}, {4, 10, 100}, {17, 260, 70}};
    List<int[]> all = new ArrayList<>(Arrays.asList(shapes));
    // A C at most one vector wide and a K shorter than a vector: every width and depth up to 17,
    // with M = 37 = 4 x 8 + 4 + 1 and with M below one strip. Sized past the scalar path's threshold.
    for (int x = 1; x <= 17; x++) {
      all.add(new int[] {37, 120, x});
      all.add(new int[] {45, x, 100});
      all.add(new int[] {43, x, x});
    }
    all.addAll(List.of(new int[] {3, 200, 10}, new int[] {7, 100, 16}, new int[] {5, 260, 9},
        new int[] {100, 100, 10}, new int[] {100, 10, 100}, new int[] {12, 300, 8}));
    List<Arguments> out = new ArrayList<>();
    for (int[] s : all) {
      for (int t = 0; t < 4; t++) {
        for (boolean acc : new boolean[] {false, true}) {
          out.add(Arguments.of(s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, acc));
        }
      }
    }
    return out;
  }

  /** dgemm shares no blocking with the float path, so its large shapes would only add time. */
  static List<Arguments> doubleCases() {
    return cases().stream()
        .filter(c -> (long) (int) c.get()[0] * (int) c.get()[1] * (int) c.get()[2] <= 1_000_000)
        .toList();
  }

  /** Where the operands sit: stored shape, leading dimension padded by 3, offset 5. */
  private record Layout(int rows, int cols, int ld, int off) {
    static Layout of(int rows, int cols) {
      return new Layout(rows, cols, cols + 3, 5);
    }

    int size() {
      return off + rows * ld + 2;
    }

    int index(int r, int c) {
      return off + r * ld + c;
    }
  }

  @ParameterizedTest(name = "{0}x{1}x{2} tA={3} tB={4} acc={5}")
  @MethodSource("cases")
  void sgemmMatchesNaive(int m, int k, int n, boolean tA, boolean tB, boolean acc) {
    checkSgemm(Gemm::sgemm, m, k, n, tA, tB, acc);
  }

  @ParameterizedTest(name = "{0}x{1}x{2} tA={3} tB={4} acc={5}")
  @MethodSource("cases")
  void plainJavaSgemmMatchesNaive(int m, int k, int n, boolean tA, boolean tB, boolean acc) {
    checkSgemm(GemmPlain::sgemm, m, k, n, tA, tB, acc);
  }

  @ParameterizedTest(name = "{0}x{1}x{2} tA={3} tB={4} acc={5}")
  @MethodSource("doubleCases")
  void dgemmMatchesNaive(int m, int k, int n, boolean tA, boolean tB, boolean acc) {
    checkDgemm(Gemm::dgemm, m, k, n, tA, tB, acc);
  }

  @ParameterizedTest(name = "{0}x{1}x{2} tA={3} tB={4} acc={5}")
  @MethodSource("doubleCases")
  void plainJavaDgemmMatchesNaive(int m, int k, int n, boolean tA, boolean tB, boolean acc) {
    checkDgemm(GemmPlain::dgemm, m, k, n, tA, tB, acc);
  }

  /** The plain path crosses its 256-row and 512-column block edges only on shapes this large. */
  @Test
  void plainJavaSgemmCrossesBlockEdges() {
    checkSgemm(GemmPlain::sgemm, 3, 600, 1100, true, true, true);
    checkSgemm(GemmPlain::sgemm, 5, 257, 513, false, false, false);
  }

  private static void checkSgemm(FloatGemm gemm, int m, int k, int n, boolean tA, boolean tB,
      boolean acc) {
    SplittableRandom rnd = new SplittableRandom(31L * m + 17L * k + n);
    Layout la = tA ? Layout.of(k, m) : Layout.of(m, k);
    Layout lb = tB ? Layout.of(n, k) : Layout.of(k, n);
    Layout lc = Layout.of(m, n);
    float[] a = random(rnd, la.size());
    float[] b = random(rnd, lb.size());
    float[] c = new float[lc.size()];
    Arrays.fill(c, SENTINEL);
    double[] c0 = new double[m * n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        c[lc.index(i, j)] = (float) rnd.nextDouble(-1, 1);
        c0[i * n + j] = c[lc.index(i, j)];
      }
    }

    gemm.run(tA, tB, m, n, k, a, la.off, la.ld, b, lb.off, lb.ld, c, lc.off, lc.ld, acc);

    int step = stride(m, n, k);
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        if ((i * n + j) % step != 0) {
          c[lc.index(i, j)] = SENTINEL;
          continue;
        }
        double ref = acc ? c0[i * n + j] : 0;
        double mag = Math.abs(ref);
        for (int p = 0; p < k; p++) {
          double x = a[tA ? la.index(p, i) : la.index(i, p)];
          double y = b[tB ? lb.index(j, p) : lb.index(p, j)];
          ref += x * y;
          mag += Math.abs(x * y);
        }
        float got = c[lc.index(i, j)];
        if (Math.abs(got - ref) > 1e-4 * mag + 1e-6) {
          throw new AssertionError("C[" + i + "][" + j + "] = " + got + ", expected " + ref
              + " (tolerance " + (1e-4 * mag + 1e-6) + ")");
        }
        c[lc.index(i, j)] = SENTINEL;
      }
    }
    for (int i = 0; i < c.length; i++) {
      if (c[i] != SENTINEL) {
        throw new AssertionError("element " + i + " outside C was overwritten: " + c[i]);
      }
    }
  }

  private static void checkDgemm(DoubleGemm gemm, int m, int k, int n, boolean tA, boolean tB,
      boolean acc) {
    SplittableRandom rnd = new SplittableRandom(7L * m + 3L * k + n);
    Layout la = tA ? Layout.of(k, m) : Layout.of(m, k);
    Layout lb = tB ? Layout.of(n, k) : Layout.of(k, n);
    Layout lc = Layout.of(m, n);
    double[] a = rnd.doubles(la.size(), -1, 1).toArray();
    double[] b = rnd.doubles(lb.size(), -1, 1).toArray();
    double[] c = rnd.doubles(lc.size(), -1, 1).toArray();
    double[] before = c.clone();

    gemm.run(tA, tB, m, n, k, a, la.off, la.ld, b, lb.off, lb.ld, c, lc.off, lc.ld, acc);

    int step = stride(m, n, k);
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        if ((i * n + j) % step != 0) {
          c[lc.index(i, j)] = before[lc.index(i, j)];
          continue;
        }
        double ref = acc ? before[lc.index(i, j)] : 0;
        for (int p = 0; p < k; p++) {
          ref += a[tA ? la.index(p, i) : la.index(i, p)] * b[tB ? lb.index(j, p) : lb.index(p, j)];
        }
        if (Math.abs(c[lc.index(i, j)] - ref) > 1e-12 * (k + 1)) {
          throw new AssertionError("C[" + i + "][" + j + "] = " + c[lc.index(i, j)]
              + ", expected " + ref);
        }
        c[lc.index(i, j)] = before[lc.index(i, j)];
      }
    }
    assertThat(c).as("elements outside C must be untouched").isEqualTo(before);
  }

  @Test
  void aNarrowProductOverALongKKeepsTheThreadsScratchSmall() throws InterruptedException {
    int k = 200_000; // a matrix-vector product over a wide input
    float[] a = new float[2 * k];
    float[] x = new float[k];
    Arrays.fill(a, 1f);
    Arrays.fill(x, 0.5f);
    float[] y = new float[2];
    int[] packed = new int[1];
    // A thread of its own: the scratch keeps the largest size its thread has needed.
    Thread t = new Thread(() -> {
      Gemm.sgemm(false, false, 2, 1, k, a, 0, k, x, 0, 1, y, 0, 1, false);
      packed[0] = GemmPacking.SCRATCH.get().bPack.length;
    });
    t.start();
    t.join();
    assertThat(y).containsExactly(k * 0.5f, k * 0.5f);
    assertThat(packed[0]).as("packed B floats").isLessThanOrEqualTo(GemmPacking.KC_MAX * GemmMicroKernel.NR);
  }

  @Test
  void reusesScratchAcrossShrinkingShapes() {
    float[] big = new float[300 * 130];
    float[] out = new float[40 * 130];
    Gemm.sgemm(false, false, 40, 130, 300, big, 0, 300, big, 0, 130, out, 0, 130, false);
    float[] a = {1, 2, 3, 4, 5, 6};
    float[] ones = new float[6 * 60];
    Arrays.fill(ones, 1f);
    float[] c = new float[2 * 60];
    Gemm.sgemm(false, false, 2, 60, 3, a, 0, 3, ones, 0, 60, c, 0, 60, false);
    assertThat(c[0]).isEqualTo(6f);
    assertThat(c[60 + 59]).isEqualTo(15f);
  }

  @Test
  void withoutAccumulateOverwritesCEvenWhereItHoldsNaN() {
    for (int size : new int[] {3, 40}) { // scalar path, then the blocked one
      float[] ones = new float[size * size];
      Arrays.fill(ones, 1f);
      for (FloatGemm gemm : List.<FloatGemm>of(Gemm::sgemm, GemmPlain::sgemm)) {
        float[] c = new float[size * size];
        Arrays.fill(c, Float.NaN);
        gemm.run(false, true, size, size, size, ones, 0, size, ones, 0, size, c, 0, size, false);
        assertThat(c).containsOnly((float) size);
      }
    }
  }

  @Test
  void rejectsOperandsOutsideTheirArrays() {
    float[] a = new float[6];
    assertThatThrownBy(() -> Gemm.sgemm(false, false, 2, 3, 3, a, 0, 3, a, 0, 3, a, 0, 3, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("B: stored 3x3");
    assertThatThrownBy(() -> Gemm.sgemm(false, false, 2, 2, 3, a, 0, 2, a, 0, 2, a, 0, 2, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leading dimension >= 3");
    assertThatThrownBy(() -> Gemm.dgemm(true, false, -1, 2, 3, new double[9], 0, 3,
        new double[9], 0, 3, new double[9], 0, 3, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("m=-1");
  }

  /**
   * Checks every element of small products and every 13th of large ones, so that the reference
   * loop does not dominate the test time; 13 is coprime to the vector and tile widths, so the
   * sample still lands on every column position within a tile.
   */
  private static int stride(int m, int n, int k) {
    return (long) m * n * k > 1_000_000 ? 13 : 1;
  }

  private static float[] random(SplittableRandom rnd, int size) {
    float[] x = new float[size];
    for (int i = 0; i < size; i++) {
      x[i] = (float) rnd.nextDouble(-1, 1);
    }
    return x;
  }
}
