package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.psflow.exec.Code;
import dev.psflow.exec.Session;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** In one process: a table saved in one partitioning restores into another, or says why it cannot. */
class RepartitionedRestoreTest {
  @TempDir Path dir;

  private static final Tensor TABLE = Tensor.of(floats(11 * 3), 11, 3);

  private static float[] floats(int n) {
    float[] d = new float[n];
    IntStream.range(0, n).forEach(i -> d[i] = i);
    return d;
  }

  /** A graph holding "emb" of {@code shape} in {@code parts} partitions (0: one plain variable), initialized from TABLE. */
  private record Model(Graph g, Ops tf, Output table) {
    static Model of(Shape shape, int parts) {
      Graph g = new Graph();
      Ops tf = Ops.create(g);
      Output table;
      if (parts == 0) {
        table = tf.variable("emb", tf.zeros(shape, DType.FLOAT32)).asOutput();
      } else {
        table = PartitionedVariable.create(tf, "emb", shape, DType.FLOAT32, (t, s) -> t.zeros(s, DType.FLOAT32),
            VariablePartitioner.fixedSize(parts)).asOutput();
      }
      return new Model(g, tf, table);
    }
  }

  private Path save(int parts) {
    Model m = Model.of(TABLE.shape(), parts);
    try (Session s = Session.open(m.g())) {
      s.runner().addTarget(m.tf().globalVariablesInitializer()).run();
      // each part gets its rows of TABLE
      Saver saver = new Saver(m.g());
      for (Variable v : saver.variables()) {
        SaveSliceInfo slice = SaveSliceInfo.of(v).orElse(SaveSliceInfo.whole(v.name(), v.shape()));
        int from = (int) slice.firstRow() * 3;
        Tensor rows = Tensor.of(Arrays.copyOfRange(TABLE.floatData(), from, from + (int) slice.rows() * 3),
            (int) slice.rows(), 3);
        s.runner().addTarget(m.tf().assign(v, m.tf().constant(rows))).run();
      }
      return Path.of(saver.save(s, dir, 1));
    }
  }

  private Tensor restore(Path ckpt, Shape shape, int parts) {
    Model m = Model.of(shape, parts);
    try (Session s = Session.open(m.g())) {
      new Saver(m.g()).restore(s, ckpt);
      return s.runner().fetch(m.table()).run().get(0);
    }
  }

  @Test
  void threePartsRestoreIntoTwoIntoOneWholeVariableAndBack() {
    assertThat(restore(save(3), TABLE.shape(), 2)).isEqualTo(TABLE);
    assertThat(restore(save(3), TABLE.shape(), 0)).isEqualTo(TABLE);
    assertThat(restore(save(0), TABLE.shape(), 4)).isEqualTo(TABLE);
    assertThat(restore(save(2), TABLE.shape(), 2)).isEqualTo(TABLE); // same layout: the direct path
  }

  @Test
  void aDifferentFullShapeIsRefusedNamingTheVariable() {
    Path ckpt = save(3);
    assertThatThrownBy(() -> restore(ckpt, Shape.of(12, 3), 2))
        .isInstanceOf(StatusException.class)
        .hasMessageContaining("does not match the graph: emb is float [11,3] in the checkpoint but float [12,3] in the graph")
        .satisfies(e -> assertThat(((StatusException) e).code()).isEqualTo(Code.INVALID_ARGUMENT));
  }

  @Test
  void theSliceInfoIsTensorFlowsSpec() {
    Model m = Model.of(TABLE.shape(), 2);
    Saver saver = new Saver(m.g());
    assertThat(saver.variables()).extracting(v -> SaveSliceInfo.of(v).orElseThrow().toString())
        .containsExactly("emb 11 3 0,6:0,3", "emb 11 3 6,5:0,3");
  }

  @Test
  void aCheckpointFromBeforeSliceInfosStillRestoresIntoTheSameLayoutByName() throws IOException {
    Path ckpt = save(3);
    Path index = CheckpointIndex.indexFile(ckpt);
    JsonObject root = JsonParser.parseString(Files.readString(index)).getAsJsonObject();
    root.getAsJsonObject("variables").entrySet().forEach(e -> e.getValue().getAsJsonObject().remove("save_slice_info"));
    Files.writeString(index, root.toString());
    assertThat(restore(ckpt, TABLE.shape(), 3)).isEqualTo(TABLE);
    assertThatThrownBy(() -> restore(ckpt, TABLE.shape(), 2)).isInstanceOf(StatusException.class)
        .hasMessageContaining("emb/part_0 has shape [4,3] in the checkpoint but [6,3] in the graph");
  }
}
