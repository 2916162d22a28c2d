package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.Random;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * OpenBLAS behind Gemm's contract: transposes, offsets, leading dimensions and accumulation, on both
 * of its paths (the Foreign Function API on the arrays themselves, and JavaCPP's JNI binding).
 */
class NativeBlasTest {
  private static boolean linuxX86() {
    return "Linux".equals(System.getProperty("os.name"))
        && ("amd64".equals(System.getProperty("os.arch")) || "x86_64".equals(System.getProperty("os.arch")));
  }

  @Test
  void aJvmWithC2TakesOpenBlasUnlessToldPsflowGemmJava() {
    assumeThat(VectorSupport.C2_COMPILES).as("without C2 products always go to OpenBLAS").isTrue();
    String before = System.getProperty("psflow.gemm");
    try {
      System.setProperty("psflow.gemm", "java");
      assertThat(NativeBlas.chosen()).isFalse();
      System.clearProperty("psflow.gemm");
      assertThat(NativeBlas.chosen()).isTrue();
    } finally {
      if (before == null) {
        System.clearProperty("psflow.gemm");
      } else {
        System.setProperty("psflow.gemm", before);
      }
    }
  }

  @Test
  void loadsOnLinuxX86_64WherePsflowShipsItsNatives() {
    assumeThat(linuxX86()).as("bytedeco's natives on the test class path are for Linux x86-64").isTrue();
    assertThat(NativeBlas.available()).isTrue();
  }

  @Test
  void callsOpenBlasOnTheArraysThemselvesWherePsflowsCKernelsLoad() {
    assumeThat(linuxX86()).as("bytedeco's natives on the test class path are for Linux x86-64").isTrue();
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc").isTrue();
    assertThat(NativeBlas.available()).isTrue();
    assertThat(HeapSgemm.available()).isTrue();
  }

  @ParameterizedTest(name = "{0}x{1}x{2} transA={3} transB={4} accumulate={5} through {6}")
  @CsvSource({
      "100, 100, 784, false, false, false, heap",
      "784, 100, 100, true, false, false, heap",
      "100, 100, 10, false, true, false, heap",
      "100, 10, 100, false, false, true, heap",
      "37, 23, 51, true, true, true, heap",
      "1, 1, 4096, false, false, false, heap",
      "100, 100, 784, false, false, false, JNI",
      "784, 100, 100, true, false, false, JNI",
      "37, 23, 51, true, true, true, JNI",
      "1, 1, 4096, false, false, false, JNI",
      "100, 100, 784, false, false, false, NativeBlas",
      "520, 520, 500, true, false, true, NativeBlas", // over HeapSgemm.MAX_WORK: the copying path
  })
  void computesWhatTheDefinitionSaysFromOffsetsAndLeadingDimensions(int m, int n, int k, boolean transA,
      boolean transB, boolean accumulate, String path) { // path: heap (HeapSgemm), JNI (JavaCPP's), or NativeBlas's own choice
    assumeThat(NativeBlas.available()).isTrue();
    assumeThat(path.equals("JNI") || HeapSgemm.available()).as("the heap path needs psflow's C kernels").isTrue();
    Random r = new Random(m * 31 + n * 7 + k);
    int aRows = transA ? k : m;
    int aCols = transA ? m : k;
    int bRows = transB ? n : k;
    int bCols = transB ? k : n;
    int lda = aCols + 3; // every leading dimension wider than its matrix, and every matrix at an offset
    int ldb = bCols + 1;
    int ldc = n + 2;
    int aOff = 5;
    int bOff = 7;
    int cOff = 3;
    float[] a = random(r, aOff + aRows * lda);
    float[] b = random(r, bOff + bRows * ldb);
    float[] c = random(r, cOff + m * ldc);
    float[] expected = c.clone();
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double s = accumulate ? c[cOff + i * ldc + j] : 0;
        for (int p = 0; p < k; p++) {
          float x = transA ? a[aOff + p * lda + i] : a[aOff + i * lda + p];
          float y = transB ? b[bOff + j * ldb + p] : b[bOff + p * ldb + j];
          s += (double) x * y;
        }
        expected[cOff + i * ldc + j] = (float) s;
      }
    }

    if (path.equals("heap")) {
      HeapSgemm.sgemm(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
    } else if (path.equals("NativeBlas")) {
      NativeBlas.sgemm(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
    } else {
      NativeBlas.sgemmThroughJni(transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
    }

    for (int i = 0; i < c.length; i++) {
      int row = (i - cOff) / ldc;
      int col = (i - cOff) % ldc;
      boolean inC = i >= cOff && row < m && col < n;
      if (inC) {
        assertThat(c[i]).as("C[%d][%d]", row, col).isCloseTo(expected[i], Offset.offset(
            1e-4f * (float) Math.sqrt(k) * Math.max(1f, Math.abs(expected[i]))));
      } else {
        assertThat(c[i]).as("outside C, index %d", i).isEqualTo(expected[i]);
      }
    }
  }

  @ParameterizedTest(name = "{0}x{1}x{2} transA={3} transB={4}")
  @CsvSource({
      "100, 100, 784, false, false", // the hidden layer's forward product
      "784, 100, 100, true, false", // its weights' gradient
      "100, 100, 10, false, true",
      "300, 200, 700, false, false", // K over OpenBLAS's block: the second block adds to the first's sums
  })
  void addingTheProductIntoZerosGivesOverwritingsResultBitForBit(int m, int n, int k, boolean transA, boolean transB) {
    assumeThat(NativeBlas.available()).isTrue();
    Random r = new Random(m + 3L * n + 7L * k);
    float[] a = random(r, m * k);
    float[] b = random(r, k * n);
    for (int i = 0; i < a.length; i += 5) {
      a[i] = i % 2 == 0 ? 0f : -0f; // products of zeros, whose sums' signs must agree too
    }
    float[] overwritten = random(r, m * n); // beta = 0: whatever C held is zeroed first
    float[] added = new float[m * n]; // beta = 1 on a new array's +0
    int lda = transA ? m : k;
    int ldb = transB ? k : n;
    NativeBlas.sgemm(transA, transB, m, n, k, a, 0, lda, b, 0, ldb, overwritten, 0, n, false);
    NativeBlas.sgemm(transA, transB, m, n, k, a, 0, lda, b, 0, ldb, added, 0, n, true);
    for (int i = 0; i < added.length; i++) {
      assertThat(Float.floatToRawIntBits(added[i])).as("C[%d]", i).isEqualTo(Float.floatToRawIntBits(overwritten[i]));
    }
  }

  private static float[] random(Random r, int size) {
    float[] x = new float[size];
    for (int i = 0; i < size; i++) {
      x[i] = r.nextFloat() * 2 - 1;
    }
    return x;
  }
}
