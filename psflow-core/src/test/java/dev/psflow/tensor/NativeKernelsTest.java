package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * psflow's C kernels load wherever the build compiled them into psflow-core (gcc on Linux x86-64),
 * compute what the Java loops they stand in for compute, bit for bit (Adam's: {@code NativeAdamTest}),
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
        .as("built into psflow-core: %s; the tests run on JDK %d with --enable-native-access=ALL-UNNAMED", built,
            Runtime.version().feature())
        .isEqualTo(built && linuxX86 && Runtime.version().feature() >= 22);
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
  void refuseArraysShorterThanTheirRange() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64").isTrue();
    float[] ten = new float[10];
    assertThatThrownBy(() -> NativeKernels.applyAdam(ten, ten, ten, new float[9], 0, ten, 0, 10, 0.1f, 0.9f, 0.999f,
        1e-7f, false)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.applyAdam(ten, ten, ten, ten, 1, ten, 1, 10, 0.1f, 0.9f, 0.999f,
        1e-7f, false)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.add(ten, new float[9], 10)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.divide(ten, 2f, 11)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  private static int[] bits(float[] a) {
    int[] b = new int[a.length];
    for (int i = 0; i < a.length; i++) {
      b[i] = Float.floatToRawIntBits(a[i]);
    }
    return b;
  }
}
