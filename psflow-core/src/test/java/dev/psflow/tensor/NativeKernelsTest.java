package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * psflow's C kernels load wherever the build compiled them into psflow-core (gcc on Linux x86-64),
 * compute what the Java loops they stand in for compute, bit for bit (Adam's: {@code NativeAdamTest};
 * OpenBLAS's product through them: {@code NativeBlasTest}),
 * and refuse arrays too short for what they are told to touch, as the Java loops would, instead of
 * reading or writing past them.
 */
class NativeKernelsTest {
  @Test
  void loadWhereverTheBuildCompiledThem() {
    // a library in the jar that fails to link would leave a ps task's optimizer on its slow Java loop without a word
    boolean built = NativeKernels.class.getResource(NativeKernels.RESOURCE) != null;
    boolean linuxX86 = "Linux".equals(System.getProperty("os.name"))
        && ("amd64".equals(System.getProperty("os.arch")) || "x86_64".equals(System.getProperty("os.arch")));
    assertThat(NativeKernels.available())
        .as("built into psflow-core: %s; the tests run with --enable-native-access=ALL-UNNAMED", built)
        .isEqualTo(built && linuxX86);
  }

  @Test
  void sumAndMeanAsTheJavaLoopsDoThem() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64").isTrue();
    SplittableRandom r = new SplittableRandom(7);
    int n = 78_403;
    float[] a = new float[n];
    float[] b = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) r.nextDouble(-1, 1);
      b[i] = (float) (r.nextDouble(-1, 1) * (i % 3 == 0 ? 1e-30 : 1));
    }
    a[0] = Float.NaN;
    b[1] = Float.POSITIVE_INFINITY;
    a[2] = Float.MIN_VALUE;
    float[] viaJava = a.clone();
    for (int i = 0; i < n; i++) {
      viaJava[i] += b[i];
    }
    for (int i = 0; i < n; i++) {
      viaJava[i] /= 3;
    }
    float[] viaC = a.clone();
    NativeKernels.add(viaC, b, n);
    NativeKernels.divide(viaC, 3, n);
    assertThat(bits(viaC)).isEqualTo(bits(viaJava));
  }

  @Test
  void reluAsTheJavaLoopDoesIt() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64").isTrue();
    SplittableRandom r = new SplittableRandom(11);
    int n = 10_003;
    float[] features = new float[n + 5];
    float[] values = new float[n + 5];
    for (int i = 0; i < features.length; i++) {
      features[i] = (float) r.nextDouble(-1, 1);
      values[i] = (float) r.nextDouble(-3, 3);
    }
    features[0] = Float.NaN;
    features[1] = -0f;
    features[2] = 0f;
    features[3] = Float.MIN_VALUE;
    features[4] = Float.NEGATIVE_INFINITY;
    float[] viaJava = new float[n + 5];
    for (int i = 0; i < n; i++) {
      viaJava[i] = features[i] > 0 ? values[i] : 0f;
    }
    float[] viaC = new float[n + 5];
    NativeKernels.wherePositive(features, values, viaC, n);
    assertThat(bits(viaC)).isEqualTo(bits(viaJava)); // the last 5 untouched
    NativeKernels.wherePositive(features, features, viaC, n); // Relu itself: values = features
    for (int i = 0; i < n; i++) {
      assertThat(viaC[i]).isEqualTo(features[i] > 0 ? features[i] : 0f);
    }
  }

  @Test
  void pixelsAsTheJavaLoopConvertsThem() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64").isTrue();
    byte[] pixels = new byte[3 + 256 * 3];
    for (int i = 0; i < pixels.length; i++) {
      pixels[i] = (byte) (i * 7);
    }
    float scale = 1f / 255;
    float[] viaJava = new float[2 + 256 * 3 + 4];
    for (int i = 0; i < 256 * 3; i++) {
      viaJava[2 + i] = (pixels[3 + i] & 0xff) * scale;
    }
    float[] viaC = new float[viaJava.length];
    NativeKernels.toScaledFloats(pixels, 3, viaC, 2, 256 * 3, scale);
    assertThat(bits(viaC)).isEqualTo(bits(viaJava));
  }

  @Test
  void aShuffledBatchOfPixelRowsAsTheJavaLoopGathersIt() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64").isTrue();
    int rowLength = 784;
    int examples = 50;
    byte[] pixels = new byte[7 + examples * rowLength];
    for (int i = 0; i < pixels.length; i++) {
      pixels[i] = (byte) (i * 31 + 5);
    }
    int[] order = {3, 49, 0, 17, 17, 8, 42};
    float scale = 1f / 255;
    float[] viaJava = new float[1 + 5 * rowLength + 2];
    for (int i = 0; i < 5; i++) {
      for (int p = 0; p < rowLength; p++) {
        viaJava[1 + i * rowLength + p] = (pixels[7 + order[1 + i] * rowLength + p] & 0xff) * scale;
      }
    }
    float[] viaC = new float[viaJava.length];
    NativeKernels.gatherScaledFloats(pixels, 7, rowLength, order, 1, 5, viaC, 1, scale);
    assertThat(bits(viaC)).isEqualTo(bits(viaJava));
    assertThatThrownBy(() -> NativeKernels.gatherScaledFloats(pixels, 7, rowLength, new int[] {50}, 0, 1, viaC, 0,
        scale)).isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("row 50");
    assertThatThrownBy(() -> NativeKernels.gatherScaledFloats(pixels, 7, rowLength, new int[] {-1}, 0, 1, viaC, 0,
        scale)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.gatherScaledFloats(pixels, 7, rowLength, order, 0, 7, viaC, 0, scale))
        .isInstanceOf(IndexOutOfBoundsException.class); // 7 rows do not fit in dst
  }

  @Test
  void biasAndItsGradientAsTheJavaLoopsDoThem() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64").isTrue();
    SplittableRandom r = new SplittableRandom(13);
    for (int cols : new int[] {10, 100, 37}) {
      int rows = 101;
      int n = rows * cols;
      float[] x = new float[n + 3];
      float[] b = new float[cols];
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) (r.nextDouble(-1, 1) * (i % 5 == 0 ? 1e-30 : 1e3));
      }
      for (int j = 0; j < cols; j++) {
        b[j] = (float) r.nextDouble(-1, 1);
      }
      float[] yJava = new float[n + 3];
      float[] dbJava = new float[cols];
      for (int row = 0; row < n; row += cols) {
        for (int j = 0; j < cols; j++) {
          yJava[row + j] = x[row + j] + b[j];
          dbJava[j] += x[row + j];
        }
      }
      float[] yC = new float[n + 3];
      float[] dbC = new float[cols];
      NativeKernels.biasAdd(x, b, yC, n, cols);
      NativeKernels.biasAddGrad(x, dbC, n, cols);
      assertThat(bits(yC)).as("%d columns", cols).isEqualTo(bits(yJava));
      assertThat(bits(dbC)).as("%d columns", cols).isEqualTo(bits(dbJava));
    }
  }

  @Test
  void refuseArraysShorterThanTheirRange() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64").isTrue();
    float[] ten = new float[10];
    assertThatThrownBy(() -> NativeKernels.applyAdam(ten, ten, ten, new float[9], 0, ten, 0, 10, 0.1f, 0.9f, 0.999f,
        1e-7f, false)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.applyAdam(ten, ten, ten, ten, 1, ten, 1, 10, 0.1f, 0.9f, 0.999f,
        1e-7f, false)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.add(ten, new float[9], 10)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.divide(ten, 2f, 11)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.wherePositive(ten, new float[9], ten, 10))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.toScaledFloats(new byte[10], 1, ten, 0, 10, 1f))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.toScaledFloats(new byte[10], 0, ten, 1, 10, 1f))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.biasAdd(ten, new float[5], new float[8], 10, 5))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.biasAdd(ten, new float[4], ten, 10, 5))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.biasAddGrad(ten, new float[3], 10, 3))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static int[] bits(float[] a) {
    int[] b = new int[a.length];
    for (int i = 0; i < a.length; i++) {
      b[i] = Float.floatToRawIntBits(a[i]);
    }
    return b;
  }
}
