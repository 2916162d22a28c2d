package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.ops.io.Safetensors;
import dev.psflow.tensor.Tensor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Fuzzes the checkpoint index reader ({@code <prefix>.index.json}, read by Saver.restore and
 * latest-checkpoint recovery): any file either reads, and then verifies its shards or fails with
 * NOT_FOUND/DATA_LOSS, or fails to read with a DATA_LOSS StatusException naming the index; nothing
 * else escapes. Corpus: {@code src/test/resources/dev/psflow/train/CheckpointIndexFuzzTestInputs/readIndex/}.
 */
class CheckpointIndexFuzzTest {
  static final String SHARD = "model.ckpt-7.shard-0-of-1.safetensors";
  private static final Path PREFIX;

  static {
    try {
      Path dir = Files.createTempDirectory("psflow-fuzz-index");
      dir.toFile().deleteOnExit();
      PREFIX = dir.resolve("model.ckpt-7");
      CheckpointIndex.indexFile(PREFIX).toFile().deleteOnExit();
      // the shard the corpus's indexes describe, so that verifyShards gets past "not found"
      Path shard = dir.resolve(SHARD);
      Safetensors.write(shard, List.of("hid_w", "global_step"),
          List.of(Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3), Tensor.scalar(7L)), Map.of("device", "/job:ps/replica:0/task:0"));
      shard.toFile().deleteOnExit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void readIndex(byte[] bytes) throws IOException {
    Files.write(CheckpointIndex.indexFile(PREFIX), bytes);
    CheckpointIndex index;
    try {
      index = CheckpointIndex.read(PREFIX);
    } catch (StatusException e) {
      assertThat(e.code()).as(e.getMessage()).isEqualTo(Code.DATA_LOSS);
      assertThat(e.getMessage()).contains(CheckpointIndex.indexFile(PREFIX).toString());
      return;
    }
    try {
      index.verifyShards();
    } catch (StatusException e) {
      assertThat(e.code()).as(e.getMessage()).isIn(Code.NOT_FOUND, Code.DATA_LOSS);
    }
  }
}
