package dev.psflow.bench;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import dev.psflow.train.AdagradOptimizer;
import dev.psflow.train.Embeddings;
import dev.psflow.train.PartitionedVariable;
import dev.psflow.train.ReplicaDeviceSetter;
import dev.psflow.train.Saver;
import dev.psflow.train.TrainingUtil;
import dev.psflow.train.VariablePartitioner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A checkpoint of an embedding table and its Adagrad accumulator saved over P ps tasks and
 * restored over Q: ps and worker Servers in this JVM on loopback (first the P-task cluster, then
 * the Q-task one), the save and restore times, the files, and a check that every row came back.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp psflow-bench/target/psflow-bench.jar
 * dev.psflow.bench.RepartitionBench [rows 1000000] [dim 32] [P 2] [Q 3] [dir]}
 */
public final class RepartitionBench {
  private RepartitionBench() {}

  private record Model(List<Server> servers, Graph g, Ops tf, Output table, Output accumulator, Operation train, Output ids) {
    Session session() {
      return Session.open(g, servers.get(servers.size() - 1).target());
    }

    void stop() {
      servers.forEach(Server::stop);
    }
  }

  private static Model model(int ps, long rows, long dim) {
    ClusterSpec cluster = FreePorts.localCluster(ps, 1);
    List<Server> servers = new ArrayList<>();
    for (int i = 0; i < ps; i++) {
      servers.add(Server.create(cluster, "ps", i));
    }
    servers.add(Server.create(cluster, "worker", 0));
    Graph g = new Graph();
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0"));
    PartitionedVariable table = PartitionedVariable.create(tf, "emb", Shape.of(rows, dim), DType.FLOAT32,
        (t, shape) -> t.randomUniform(shape, DType.FLOAT32, -1f, 1f, 7), VariablePartitioner.fixedSize(ps));
    Output ids = tf.placeholder(DType.INT64, Shape.of(4));
    Output looked = Embeddings.embeddingLookup(tf, table, ids, "div", null);
    AdagradOptimizer adagrad = new AdagradOptimizer(0.3);
    Operation train = adagrad.minimize(tf.reduceSum(tf.mul(looked, looked)), TrainingUtil.getOrCreateGlobalStep(tf));
    List<Output> acc = table.shards().stream().map(v -> adagrad.slot(v, "accumulator").value()).toList();
    return new Model(servers, g, tf, table.asOutput(), acc.size() == 1 ? acc.get(0) : tf.concat(acc, 0), train, ids);
  }

  public static void main(String[] args) throws IOException {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    long dim = args.length > 1 ? Long.parseLong(args[1]) : 32;
    int p = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    int q = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    Path dir = args.length > 4 ? Path.of(args[4]) : Files.createTempDirectory("repartition");
    System.out.printf(Locale.ROOT, "table emb [%d,%d] float32 = %d MiB, and its Adagrad accumulator; %d ps -> %d ps%n",
        rows, dim, rows * dim * 4 >> 20, p, q);
    List<Tensor> saved;
    Model m = model(p, rows, dim);
    try (Session s = m.session()) {
      s.runner().addTarget(m.tf().globalVariablesInitializer()).run();
      s.runner().feed(m.ids(), Tensor.vector(0L, 1L, rows / 2, rows - 1)).addTarget(m.train()).run();
      saved = s.runner().fetch(m.table()).fetch(m.accumulator()).run();
      Saver saver = new Saver(m.g());
      long t0 = System.nanoTime();
      saver.save(s, dir, 1);
      System.out.printf(Locale.ROOT, "save over %d ps: %.2f s%n", p, (System.nanoTime() - t0) / 1e9);
    } finally {
      m.stop();
    }
    try (Stream<Path> files = Files.list(dir)) {
      files.sorted().forEach(f -> System.out.printf(Locale.ROOT, "  %-44s %,14d bytes%n", f.getFileName(), size(f)));
    }
    m = model(q, rows, dim);
    try (Session s = m.session()) {
      Saver saver = new Saver(m.g());
      long t0 = System.nanoTime();
      saver.restore(s, Saver.latestCheckpoint(dir).orElseThrow());
      System.out.printf(Locale.ROOT, "restore over %d ps: %.2f s%n", q, (System.nanoTime() - t0) / 1e9);
      List<Tensor> back = s.runner().fetch(m.table()).fetch(m.accumulator()).run();
      boolean same = Arrays.equals(back.get(0).floatData(), saved.get(0).floatData())
          && Arrays.equals(back.get(1).floatData(), saved.get(1).floatData());
      System.out.println("every row of emb and emb/Adagrad equal to the saved one: " + same);
      if (!same) {
        System.exit(1);
      }
    } finally {
      m.stop();
    }
  }

  private static long size(Path f) {
    try {
      return Files.size(f);
    } catch (IOException e) {
      return -1;
    }
  }
}
