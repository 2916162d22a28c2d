package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A product split into blocks of rows or columns over {@link IntraOpThreads} gives C as one block
 * does, and touches nothing outside C: every transpose, with and without accumulate, inside padded
 * arrays. psflow's own kernels give it bit for bit; OpenBLAS's (where its natives load) within
 * rounding: on some CPUs OpenBLAS sums a block's elements in another order than one call's (on
 * Zen 3, 3-6% of the elements differ in their last bits).
 * Shapes are M x K x N; rows are split when M > N.
 */
class GemmSplitTest {
  static List<Arguments> cases() {
    // Cheap shapes first, so the kernels are compiled before the model's large ones run.
    int[][] shapes = {
        {17, 260, 5}, {100, 10, 100}, {3, 600, 97}, {37, 300, 70}, {70, 300, 37}, {9, 20, 1100},
        {1100, 20, 9}, {100, 784, 100}, {784, 100, 100}};
    List<Arguments> out = new ArrayList<>();
    for (int[] s : shapes) {
      for (int t = 0; t < 4; t++) {
        for (boolean acc : new boolean[] {false, true}) {
          for (int parts : new int[] {2, 3}) {
            out.add(Arguments.of(s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, acc, parts));
          }
        }
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0}x{1}x{2} tA={3} tB={4} acc={5} parts={6}")
  @MethodSource("cases")
  void splitProductEqualsTheWholeOne(int m, int k, int n, boolean tA, boolean tB, boolean acc, int parts) {
    Padded p = Padded.random(new SplittableRandom(13L * m + 7L * k + n), m, k, n, tA, tB);
    float[] whole = p.c.clone();

    Gemm.sgemmInParts(1, false, tA, tB, m, n, k, p.a, 5, p.lda, p.b, 5, p.ldb, whole, 5, p.ldc, acc);
    Gemm.sgemmInParts(parts, false, tA, tB, m, n, k, p.a, 5, p.lda, p.b, 5, p.ldb, p.c, 5, p.ldc, acc);

    assertSameC(p.c, whole);
  }

  static List<Arguments> openBlasCases() {
    // Products large enough for Gemm to split them (16 million multiply-adds and more; OpenBLAS takes
    // another kernel below 1 million, which sums in another order): the replica model's at 400 and
    // 1600 hidden units (forward, and the hidden layer's gradient), and an odd one.
    int[][] shapes = {{301, 299, 203}, {100, 784, 400}, {100, 784, 1600}, {784, 100, 1600}};
    List<Arguments> out = new ArrayList<>();
    for (int[] s : shapes) {
      for (int t = 0; t < 4; t++) {
        for (boolean acc : new boolean[] {false, true}) {
          out.add(Arguments.of(s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, acc, 2 + (t & 1)));
        }
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0}x{1}x{2} tA={3} tB={4} acc={5} parts={6}")
  @MethodSource("openBlasCases")
  void aProductSplitOverOpenBlasCallsEqualsOneCallWithinRounding(int m, int k, int n, boolean tA, boolean tB,
      boolean acc, int parts) {
    assumeTrue(NativeBlas.available(), "OpenBLAS's natives are for Linux x86-64");
    Padded p = Padded.random(new SplittableRandom(31L * m + 11L * k + n), m, k, n, tA, tB);
    float[] whole = p.c.clone();

    NativeBlas.sgemm(tA, tB, m, n, k, p.a, 5, p.lda, p.b, 5, p.ldb, whole, 5, p.ldc, acc);
    float[] before = p.c.clone();
    Gemm.sgemmInParts(parts, true, tA, tB, m, n, k, p.a, 5, p.lda, p.b, 5, p.ldb, p.c, 5, p.ldc, acc);

    assertSameProductWithinRounding(p, before, whole, m, k, n, tA, tB, acc);
  }

  @Test
  void aProductTooLargeForTheCopyFreeCallStaysWholeAndRight() {
    assumeTrue(NativeBlas.available(), "OpenBLAS's natives are for Linux x86-64");
    // The replica example's evaluation: 10,000 test images through the hidden layer, over HeapSgemm.MAX_WORK,
    // so it takes JNI's path, which copies all of C in and back out (two blocks would undo each other).
    int m = 10_000;
    int k = 784;
    int n = 100;
    assertThat((long) m * n * k).isGreaterThan(HeapSgemm.MAX_WORK);
    SplittableRandom rnd = new SplittableRandom(5);
    float[] a = random(rnd, m * k);
    float[] b = random(rnd, k * n);
    float[] c = new float[m * n];
    float[] whole = new float[m * n];

    Gemm.sgemmOnOpenBlas(false, false, m, n, k, a, 0, k, b, 0, n, c, 0, n, false);
    NativeBlas.sgemm(false, false, m, n, k, a, 0, k, b, 0, n, whole, 0, n, false);

    assertThat(Arrays.mismatch(c, whole)).as("first element that differs").isEqualTo(-1);
  }

  /**
   * A, B and C for C = op(A) * op(B), each inside a larger array: 5 elements before it, rows 3
   * longer than the matrix (the leading dimensions), and C 2 elements past its last row.
   */
  private record Padded(float[] a, int lda, float[] b, int ldb, float[] c, int ldc) {
    static Padded random(SplittableRandom rnd, int m, int k, int n, boolean tA, boolean tB) {
      int lda = (tA ? m : k) + 3;
      int ldb = (tB ? k : n) + 3;
      int ldc = n + 3;
      float[] a = GemmSplitTest.random(rnd, 5 + (tA ? k : m) * lda);
      float[] b = GemmSplitTest.random(rnd, 5 + (tB ? n : k) * ldb);
      return new Padded(a, lda, b, ldb, GemmSplitTest.random(rnd, 5 + m * ldc + 2), ldc);
    }
  }

  /**
   * C of the split product against the whole one's where the two may sum in different orders: each
   * element within twice the error bound of a float dot product, 2 (k + 1) 2^-24 (|c| + sum |a| |b|),
   * and every element outside C exactly as it was.
   */
  private static void assertSameProductWithinRounding(Padded p, float[] before, float[] whole, int m, int k, int n,
      boolean tA, boolean tB, boolean acc) {
    boolean[] inC = new boolean[before.length];
    double unit = Math.scalb(1.0, -24);
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        int at = 5 + i * p.ldc + j;
        inC[at] = true;
        double magnitude = acc ? Math.abs(before[at]) : 0;
        for (int kk = 0; kk < k; kk++) {
          float aik = tA ? p.a[5 + kk * p.lda + i] : p.a[5 + i * p.lda + kk];
          float bkj = tB ? p.b[5 + j * p.ldb + kk] : p.b[5 + kk * p.ldb + j];
          magnitude += Math.abs((double) aik * bkj);
        }
        double bound = 2 * (k + 1) * unit * magnitude;
        if (Math.abs((double) p.c[at] - whole[at]) > bound) {
          assertThat(p.c[at]).as("C[%d, %d], the split product against the whole one (bound %s)", i, j, bound)
              .isEqualTo(whole[at]);
        }
      }
    }
    for (int at = 0; at < before.length; at++) {
      if (!inC[at] && Float.floatToRawIntBits(p.c[at]) != Float.floatToRawIntBits(before[at])) {
        assertThat(p.c[at]).as("element %d of C's padded array, outside C", at).isEqualTo(before[at]);
      }
    }
  }

  private static void assertSameC(float[] c, float[] whole) {
    int at = Arrays.mismatch(c, whole);
    assertThat(at).as("first element that differs (of C in its padded array)").isEqualTo(-1);
  }

  private static float[] random(SplittableRandom rnd, int n) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = (float) rnd.nextDouble(-1, 1);
    }
    return x;
  }
}
