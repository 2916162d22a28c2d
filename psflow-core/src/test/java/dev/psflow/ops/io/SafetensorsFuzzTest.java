package dev.psflow.ops.io;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.tensor.Tensor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Fuzzes the safetensors reader that RestoreV2 and the checkpoint code use on shard files: any
 * file either reads (every tensor with the dtype and shape its header declares) or fails with a
 * DATA_LOSS StatusException naming the file; nothing else escapes (no other RuntimeException, no
 * OutOfMemoryError from a declared length, no hang). Corpus:
 * {@code src/test/resources/dev/psflow/ops/io/SafetensorsFuzzTestInputs/readFile/}.
 */
class SafetensorsFuzzTest {
  private static final Path FILE;

  static {
    try {
      Path dir = Files.createTempDirectory("psflow-fuzz-safetensors");
      dir.toFile().deleteOnExit();
      FILE = dir.resolve("shard.safetensors");
      FILE.toFile().deleteOnExit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void readFile(byte[] bytes) throws IOException {
    Files.write(FILE, bytes);
    try {
      SafetensorsHeader h = SafetensorsHeader.read(FILE);
      List<String> names = h.entries().stream().map(SafetensorsHeader.Entry::name).toList();
      List<Tensor> tensors = Safetensors.read(FILE, names);
      for (int i = 0; i < names.size(); i++) {
        assertThat(tensors.get(i).dtype()).isEqualTo(h.entries().get(i).dtype());
        assertThat(tensors.get(i).shape()).isEqualTo(h.entries().get(i).shape());
      }
    } catch (StatusException e) {
      assertThat(e.code()).as(e.getMessage()).isEqualTo(Code.DATA_LOSS);
      assertThat(e.getMessage()).contains(FILE.toString());
    }
  }
}
