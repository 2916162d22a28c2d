package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint of an embedding table partitioned over P ps Servers, trained with Adagrad (so its
 * accumulators are partitioned too), restores into a graph that partitions the same table over Q
 * other ps Servers: real gRPC on loopback, each new part read and assembled by the ps holding it,
 * and every row of the table and of its accumulator equal to the saved one.
 */
class RepartitionedRestoreClusterTest {
  private static final int ROWS = 11;
  private static final int DIM = 3;

  @TempDir Path dir;

  /** A cluster of {@code ps} ps tasks and one worker, each a Server in this JVM; the graph of the same model over them. */
  private static final class Model implements AutoCloseable {
    final List<Server> servers = new ArrayList<>();
    final Graph g = new Graph();
    final Ops tf;
    final PartitionedVariable table;
    final Output accumulator;
    final Operation train;
    final Output ids;
    final Variable step;

    Model(int ps) {
      ClusterSpec cluster = FreePorts.localCluster(ps, 1);
      for (int i = 0; i < ps; i++) {
        servers.add(Server.create(cluster, "ps", i));
      }
      servers.add(Server.create(cluster, "worker", 0));
      tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0"));
      table = PartitionedVariable.create(tf, "emb", Shape.of(ROWS, DIM), DType.FLOAT32,
          (t, shape) -> t.randomUniform(shape, DType.FLOAT32, -1f, 1f, 7), VariablePartitioner.fixedSize(ps));
      ids = tf.placeholder(DType.INT64, Shape.of(4));
      Output rows = Embeddings.embeddingLookup(tf, table, ids, "div", null);
      Output loss = tf.reduceSum(tf.mul(rows, rows));
      step = TrainingUtil.getOrCreateGlobalStep(tf);
      AdagradOptimizer adagrad = new AdagradOptimizer(0.3);
      train = adagrad.minimize(loss, step);
      List<Output> accumulators = table.shards().stream().map(v -> adagrad.slot(v, "accumulator").value()).toList();
      accumulator = accumulators.size() == 1 ? accumulators.get(0) : tf.concat(accumulators, 0);
    }

    Session session() {
      return Session.open(g, servers.get(servers.size() - 1).target());
    }

    @Override
    public void close() {
      servers.forEach(Server::stop);
    }
  }

  /** Trains P-way, saves, restores Q-way; returns the restored model's table and accumulator. */
  private void saveThenRestore(int p, int q) throws IOException {
    List<Tensor> saved;
    String path;
    try (Model m = new Model(p); Session s = m.session()) {
      assertThat(m.table.shards()).extracting(Variable::device).hasSize(p).doesNotHaveDuplicates();
      s.runner().addTarget(m.tf.globalVariablesInitializer()).run();
      for (long[] batch : new long[][] {{0, 3, 5, 10}, {5, 6, 6, 9}, {1, 2, 7, 10}}) {
        s.runner().feed(m.ids, Tensor.vector(batch)).addTarget(m.train).run();
      }
      saved = s.runner().fetch(m.table).fetch(m.accumulator).fetch(m.step).run();
      path = new Saver(m.g).save(s, dir, 3);
    }
    JsonObject part1 = JsonParser.parseString(Files.readString(Path.of(path + ".index.json"))).getAsJsonObject()
        .getAsJsonObject("variables").getAsJsonObject("emb/part_1/Adagrad");
    assertThat(part1.getAsJsonObject("save_slice_info").get("full_name").getAsString()).isEqualTo("emb/Adagrad");

    try (Model m = new Model(q); Session s = m.session()) {
      new Saver(m.g).restore(s, Saver.latestCheckpoint(dir).orElseThrow());
      // one RestoreV2 per ps task, each colocated with that task's variables: every ps reads its own new parts
      List<String> readers = m.g.operations().stream()
          .filter(op -> op.type().equals("RestoreV2") && op.name().startsWith("restore_repartitioned"))
          .map(op -> m.g.requireOperation(op.colocationGroup().orElseThrow()).device()).toList();
      assertThat(readers).doesNotHaveDuplicates()
          .containsExactlyInAnyOrderElementsOf(m.table.shards().stream().map(Variable::device).distinct().toList());
      List<Tensor> back = s.runner().fetch(m.table).fetch(m.accumulator).fetch(m.step).run();
      for (int t = 0; t < 2; t++) {
        for (int r = 0; r < ROWS; r++) {
          assertThat(row(back.get(t), r)).as("%s row %d after %d -> %d ps", t == 0 ? "emb" : "emb/Adagrad", r, p, q)
              .containsExactly(row(saved.get(t), r));
        }
      }
      assertThat(back.get(2)).isEqualTo(Tensor.scalar(3L));
      // and it trains on from there
      s.runner().feed(m.ids, Tensor.vector(0L, 1L, 2L, 3L)).addTarget(m.train).run();
      assertThat(s.runner().fetch(m.step).run().get(0)).isEqualTo(Tensor.scalar(4L));
    }
  }

  private static float[] row(Tensor t, int r) {
    return Arrays.copyOfRange(t.floatData(), r * DIM, (r + 1) * DIM);
  }

  @Test
  void twoPsTasksToThree() throws IOException {
    saveThenRestore(2, 3);
  }

  @Test
  void fourPsTasksToOne() throws IOException {
    saveThenRestore(4, 1);
  }
}
