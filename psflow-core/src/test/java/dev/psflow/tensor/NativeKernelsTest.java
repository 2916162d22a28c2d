package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * psflow's C kernels load wherever the build compiled them into psflow-core (gcc on Linux x86-64):
 * a library in the jar that fails to link would leave a ps task's optimizer on its slow Java loop
 * without a word.
 */
class NativeKernelsTest {
  @Test
  void loadWhereverTheBuildCompiledThem() {
    boolean built = NativeKernels.class.getResource(NativeKernels.RESOURCE) != null;
    boolean linuxX86 = "Linux".equals(System.getProperty("os.name"))
        && ("amd64".equals(System.getProperty("os.arch")) || "x86_64".equals(System.getProperty("os.arch")));
    assertThat(NativeKernels.available())
        .as("built into psflow-core: %s; the tests run on JDK %d with --enable-native-access=ALL-UNNAMED", built,
            Runtime.version().feature())
        .isEqualTo(built && linuxX86 && Runtime.version().feature() >= 22);
  }
}
