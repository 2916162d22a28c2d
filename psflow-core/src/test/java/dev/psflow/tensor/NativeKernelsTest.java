package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import org.junit.jupiter.api.Test;

/**
 * psflow's C kernels load wherever the build compiled them into psflow-core (gcc on Linux x86-64),
 * and refuse arrays too short for what they are told to touch, as the Java loops would, instead of
 * reading or writing past them. (That they compute what the Java loops do: {@code NativeAdamTest}.)
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
  void refuseArraysShorterThanTheirRange() {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64").isTrue();
    float[] ten = new float[10];
    assertThatThrownBy(() -> NativeKernels.applyAdam(ten, ten, ten, new float[9], 0, ten, 0, 10, 0.1f, 0.9f, 0.999f,
        1e-7f, false)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> NativeKernels.applyAdam(ten, ten, ten, ten, 1, ten, 1, 10, 0.1f, 0.9f, 0.999f,
        1e-7f, false)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
