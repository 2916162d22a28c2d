package dev.psflow.ops.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.exec.Code;
import dev.psflow.exec.Session;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.AssignVariableOp;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SaveV2 given variable handles streams their live storage; RestoreV2 given TensorFlow slice specs
 * reads only the rows asked for, checked chunk by chunk.
 */
class StreamedCheckpointTest {
  @TempDir Path dir;

  private final Graph g = new Graph();
  private final Ops tf = Ops.create(g);
  private final Output file = tf.placeholder(DType.STRING, Shape.scalar());

  /** 3 chunks and a bit: rows of 3 floats (12 bytes), so some rows straddle two chunks. */
  private static final int ROWS = 3 * Safetensors.CHUNK_BYTES / 12 + 1000;

  private static Tensor table() {
    float[] d = new float[ROWS * 3];
    for (int i = 0; i < d.length; i++) {
      d[i] = i;
    }
    return Tensor.of(d, ROWS, 3);
  }

  private static Tensor rows(Tensor t, int from, int count) {
    return Tensor.of(Arrays.copyOfRange(t.floatData(), from * 3, (from + count) * 3), count, 3);
  }

  @Test
  void saveV2GivenHandlesWritesTheVariablesThemselves() {
    Variable w = tf.variable("w", tf.constant(new float[] {1, 2, 3, 4}, 2, 2));
    Variable step = tf.variable("step", Tensor.scalar(7L), false);
    Operation save = tf.withColocation(w.handle().op()).saveV2(file, List.of("w", "step"), List.of(w.handle(), step.handle()));
    Path path = dir.resolve("shard.safetensors");
    try (Session s = Session.open(g)) {
      assertThatThrownBy(() -> s.runner().feed(file, Tensor.scalar(path.toString())).addTarget(save).run())
          .isInstanceOf(StatusException.class).hasMessageContaining("uninitialized variable w");
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      s.runner().feed(file, Tensor.scalar(path.toString())).addTarget(save).run();
    }
    assertThat(Safetensors.read(path, List.of("w", "step")))
        .containsExactly(Tensor.of(new float[] {1, 2, 3, 4}, 2, 2), Tensor.scalar(7L));
    assertThat(SafetensorsHeader.read(path).metadata()).containsKeys("chunk_crc32c/w", "chunk_crc32c/step");
  }

  /** RestoreV2 of the table's rows {@code [from, from + count)} and the whole scalar "step". */
  private List<Output> restoreRows(Shape shape, String slice) {
    return RestoreV2.create(Scope.root(g), file, tf.constant(Tensor.of(new String[] {"emb/part_0", "step"}, 2)),
        tf.constant(Tensor.of(new String[] {slice, ""}, 2)), List.of(DType.FLOAT32, DType.INT64));
  }

  @Test
  void restoreV2ReadsRowRangesAcrossChunkBoundaries() {
    Path path = dir.resolve("big.safetensors");
    Tensor t = table();
    Safetensors.write(path, List.of("step", "emb/part_0"), List.of(Tensor.scalar(3L), t), Map.of());
    int[][] ranges = {{0, 1}, {ROWS / 3 - 7, 20}, {87381, 3}, {5, ROWS - 5}, {ROWS - 1, 1}, {10, 0}};
    try (Session s = Session.open(g)) {
      for (int[] r : ranges) {
        List<Output> out = restoreRows(t.shape(), RestoreV2.rowsSpec(t.shape(), r[0], r[1]));
        List<Tensor> got = s.runner().feed(file, Tensor.scalar(path.toString())).fetch(out.get(0)).fetch(out.get(1)).run();
        assertThat(got.get(0)).as("rows %d..+%d", r[0], r[1]).isEqualTo(rows(t, r[0], r[1]));
        assertThat(got.get(1)).isEqualTo(Tensor.scalar(3L));
      }
    }
  }

  @Test
  void aFlippedByteInTheChunksReadIsDataLossButOtherChunksAreNotRead() throws IOException {
    Path path = dir.resolve("big.safetensors");
    Tensor t = table();
    Safetensors.write(path, List.of("step", "emb/part_0"), List.of(Tensor.scalar(3L), t), Map.of());
    SafetensorsHeader h = SafetensorsHeader.read(path);
    long lastChunk = h.dataStart() + h.entry("emb/part_0").orElseThrow().begin() + 3L * Safetensors.CHUNK_BYTES + 5;
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) 0xff}), lastChunk);
    }
    List<Output> first = restoreRows(t.shape(), RestoreV2.rowsSpec(t.shape(), 0, 1000));
    List<Output> last = restoreRows(t.shape(), RestoreV2.rowsSpec(t.shape(), ROWS - 10, 10));
    try (Session s = Session.open(g)) {
      assertThat(s.runner().feed(file, Tensor.scalar(path.toString())).fetch(first.get(0)).run().get(0))
          .isEqualTo(rows(t, 0, 1000));
      assertThatThrownBy(() -> s.runner().feed(file, Tensor.scalar(path.toString())).fetch(last.get(0)).run())
          .isInstanceOf(StatusException.class).hasMessageContaining("chunk 3 of 'emb/part_0' fails its CRC32C check")
          .satisfies(e -> assertThat(((StatusException) e).code()).isEqualTo(Code.DATA_LOSS));
    }
  }

  @Test
  void aSliceSpecThatDoesNotFitTheStoredTensorIsInvalid() {
    Path path = dir.resolve("small.safetensors");
    Safetensors.write(path, List.of("step", "emb/part_0"), List.of(Tensor.scalar(3L), rows(table(), 0, 4)), Map.of());
    try (Session s = Session.open(g)) {
      for (String bad : new String[] {"5 3 0,1:-", "4 3 2,3:-", "4 3 0,1:1,2", "4 3 x", "4 3"}) {
        List<Output> out = restoreRows(Shape.of(4, 3), bad);
        assertThatThrownBy(() -> s.runner().feed(file, Tensor.scalar(path.toString())).fetch(out.get(0)).run())
            .as(bad).isInstanceOf(StatusException.class).hasMessageContaining("bad shape_and_slices \"" + bad + "\"")
            .satisfies(e -> assertThat(((StatusException) e).code()).isEqualTo(Code.INVALID_ARGUMENT));
      }
    }
  }

  @Test
  void anAssignTakingTheRestoredTensorMakesItTheVariablesStorageAndEachRestoreReadsAfresh() {
    Variable w = tf.variable("w", tf.constant(new float[] {0, 0}));
    Path path = dir.resolve("w.safetensors");
    Safetensors.write(path, List.of("w"), List.of(Tensor.vector(1f, 2f)), Map.of());
    Output read = tf.withColocation(w.handle().op()).restoreV2(file, List.of("w"), List.of(DType.FLOAT32)).get(0);
    Operation restore = AssignVariableOp.createTakingInput(Scope.root(g), w.handle(), read);
    Operation bump = tf.assignAdd(w, tf.constant(new float[] {10, 10}));
    try (Session s = Session.open(g)) {
      for (int round = 0; round < 2; round++) {
        s.runner().feed(file, Tensor.scalar(path.toString())).addTarget(restore).run();
        assertThat(s.runner().fetch(w).run().get(0)).isEqualTo(Tensor.vector(1f, 2f));
        s.runner().addTarget(bump).run();
        assertThat(s.runner().fetch(w).run().get(0)).isEqualTo(Tensor.vector(11f, 12f));
      }
    }
    assertThat(restore.attrBool(AssignVariableOp.TAKE_INPUT)).isTrue();
  }
}
