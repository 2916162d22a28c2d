package dev.psflow.examples;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.distributed.grpc.WireStats;
import dev.psflow.exec.Session;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import dev.psflow.train.MonitoredTrainingSession;
import dev.psflow.train.MonitoredTrainingSessionBuilder;
import dev.psflow.train.NanTensorHook;
import dev.psflow.train.Saver;
import dev.psflow.train.SyncReplicasHook;
import dev.psflow.train.SyncReplicasOptimizer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Runs one task of {@link EmbeddingReplica}: a ps joins; worker 0 (the chief) initializes the
 * model (each ps its own shard) or restores it from {@code --log_dir}; the other workers wait for
 * it. Each worker trains until the global step reaches {@code --train_steps} and prints, after
 * {@code --warmup_steps}: examples/sec, rows touched/sec (distinct ids per step), bytes on the wire
 * per step against the ideal for the rows it touched, the time from its JVM's start to the end of
 * its first step, and its loss at the first step and the mean over its last 100. With
 * {@code --time_checkpoint} the chief then saves the whole model with a {@link Saver} and restores
 * it, timing both.
 */
public final class EmbeddingReplicaRun {
  private static final int LOSS_WINDOW = 100;

  private EmbeddingReplicaRun() {}

  public static void run(EmbeddingReplica.Flags f, ServerOptions serverOptions, PrintStream out)
      throws InterruptedException {
    if (f.jobName() == null || f.jobName().isEmpty()) {
      throw new IllegalArgumentException("Must specify an explicit `job_name`");
    }
    EmbeddingReplica.checkFlags(f);
    int task = f.taskIndex();
    ClusterSpec cluster = ClusterSpec.fromFlags(f.psHosts(), f.workerHosts());
    cluster.address(f.jobName(), task);
    Server server = Server.create(cluster, f.jobName(), task,
        f.security().serverOptions(serverOptions, cluster, f.jobName(), task, f.logDir()));
    if (f.jobName().equals("ps")) {
      server.join();
      return;
    }
    out.printf(Locale.ROOT, "Worker %d: server up %.1f s after the JVM's start%n", task, sinceJvmStart());
    try {
      EmbeddingReplica.ReplicaGraph rg = EmbeddingReplica.buildGraph(f, cluster);
      printPlacement(out, task, rg);
      boolean chief = task == 0;
      Saver timed = chief && f.timeCheckpoint() ? new Saver(rg.graph(), 1) : null;
      SyncReplicasOptimizer sync = rg.sync();
      SyncReplicasHook syncHook = sync != null ? sync.makeSessionRunHook(chief) : null;
      out.println(chief ? "Worker 0: Initializing session..." : "Worker " + task + ": Waiting for session to be initialized...");
      long opened = System.nanoTime();
      try (MonitoredTrainingSession sess = openSession(f, rg, server.target(), syncHook, out)) {
        out.printf(Locale.ROOT, "Worker %d: Session initialization complete in %.1f s (%.1f s after the JVM's start)%n",
            task, seconds(opened), sinceJvmStart());
        try {
          train(f, rg, sess, out);
        } finally {
          if (syncHook != null) {
            syncHook.stopQueueRunner();
          }
        }
        if (sync != null && chief) {
          sess.runWithoutHooks(s -> s.runner().addTarget(sync.getInitTokensOp(sync.totalNumReplicas())).run());
        }
        if (timed != null) {
          sess.runWithoutHooks(s -> {
            timeCheckpoint(timed, s, f, out);
            return null;
          });
        }
      }
    } finally {
      server.stop();
    }
  }

  /** Where each shard went and the bytes of variables each ps task holds (slots are global variables too). */
  private static void printPlacement(PrintStream out, int task, EmbeddingReplica.ReplicaGraph rg) {
    Map<String, Long> bytesPerPs = new TreeMap<>();
    for (Variable v : rg.graph().collection(Variable.GLOBAL_VARIABLES, Variable.class)) {
      long bytes = v.shape().numElements() * Math.max(1, v.dtype().byteSize());
      bytesPerPs.merge(v.device(), bytes, Long::sum);
    }
    for (Variable shard : rg.table().shards()) {
      out.printf(Locale.ROOT, "Worker %d: %s %s on %s%n", task, shard.name(), shard.shape(), shard.device());
    }
    bytesPerPs.forEach((device, bytes) -> out.printf(Locale.ROOT, "Worker %d: %s holds %,d bytes of variables (optimizer slots included)%n",
        task, device, bytes));
  }

  private static MonitoredTrainingSession openSession(EmbeddingReplica.Flags f, EmbeddingReplica.ReplicaGraph rg,
      String target, SyncReplicasHook syncHook, PrintStream out) {
    int task = f.taskIndex();
    MonitoredTrainingSessionBuilder b = MonitoredTrainingSession.builder(rg.graph()).target(target)
        .options(rg.config()).chief(task == 0).initOp(rg.init()).globalStep(rg.globalStep()).recoveryWaitSecs(1.0)
        .log(line -> out.println("Worker " + task + ": " + line))
        .hook(new NanTensorHook(rg.loss(), rg.globalStep(), true));
    if (syncHook != null) {
      b.hook(syncHook);
    }
    if (f.logDir() != null) {
      b.checkpointDir(f.logDir());
      if (f.saveCheckpointSteps() != null) {
        b.saveCheckpointSteps(f.saveCheckpointSteps());
      }
    }
    return b.build();
  }

  /** Trains until the global step reaches --train_steps and prints the figures. */
  private static void train(EmbeddingReplica.Flags f, EmbeddingReplica.ReplicaGraph rg, MonitoredTrainingSession sess,
      PrintStream out) {
    int task = f.taskIndex();
    ClickData data = new ClickData(f.vocabSize(), f.idsPerExample(), f.zipfExponent(), f.seed() * 1_000_003L + task);
    double[] lastLosses = new double[LOSS_WINDOW];
    long localStep = 0;
    double firstLoss = 0;
    long measuredSteps = 0;
    long distinctRows = 0;
    long measuredFrom = 0;
    WireStats.Snapshot before = null;
    long globalStep = 0;
    while (globalStep < f.trainSteps()) {
      if (localStep == f.warmupSteps()) {
        before = WireStats.snapshot();
        measuredFrom = System.nanoTime();
      }
      ClickData.Batch b = data.nextBatch(f.batchSize());
      long stepStart = System.nanoTime();
      List<Tensor> r = sess.runner().feed(rg.indices(), b.indices()).feed(rg.ids(), b.ids())
          .feed(rg.denseShape(), b.denseShape()).feed(rg.labels(), b.labels())
          .addTarget(rg.train()).fetch(rg.globalStep()).fetch(rg.loss()).run();
      globalStep = r.get(0).scalarLong();
      double loss = r.get(1).scalarDouble();
      if (localStep == 0) {
        out.printf(Locale.ROOT, "Worker %d: time to first step: %.1f s from the JVM's start (first step %.1f s, loss %.4f)%n",
            task, sinceJvmStart(), seconds(stepStart), loss);
      }
      firstLoss = localStep == 0 ? loss : firstLoss;
      lastLosses[(int) (localStep % LOSS_WINDOW)] = loss;
      if (before != null) {
        measuredSteps++;
        distinctRows += b.distinctIds();
      }
      localStep++;
      if (localStep % 100 == 0) {
        out.printf(Locale.ROOT, "Worker %d: local step %d, global step %d, loss %.4f%n", task, localStep, globalStep, loss);
      }
    }
    report(f, rg, out, localStep, measuredSteps, distinctRows, measuredFrom, before, firstLoss, lastLosses);
  }

  private static void report(EmbeddingReplica.Flags f, EmbeddingReplica.ReplicaGraph rg, PrintStream out,
      long localStep, long measuredSteps, long distinctRows, long measuredFrom, WireStats.Snapshot before,
      double firstLoss, double[] lastLosses) {
    int task = f.taskIndex();
    int window = (int) Math.min(LOSS_WINDOW, localStep);
    out.printf(Locale.ROOT, "Worker %d: loss: first step %.4f, mean of the last %d steps %.4f%n", task, firstLoss, window,
        mean(lastLosses, window));
    if (measuredSteps == 0) {
      out.printf(Locale.ROOT, "Worker %d: no step after the %d warm-up steps to measure%n", task, f.warmupSteps());
      return;
    }
    double secs = seconds(measuredFrom);
    WireStats.Snapshot moved = WireStats.snapshot().minus(before);
    double rowsPerStep = distinctRows / (double) measuredSteps;
    long rowBytes = (long) f.embeddingDim() * DType.FLOAT32.byteSize();
    // Rows pulled and their gradients pushed, their int64 ids sent to the ps, the dense head both ways.
    double ideal = rowsPerStep * (rowBytes * 2 + DType.INT64.byteSize()) + rg.denseParameters() * 4.0 * 2;
    double perStep = moved.total() / (double) measuredSteps;
    out.printf(Locale.ROOT, "Worker %d: %.1f examples/sec, %.0f rows touched/sec, %.2f steps/sec over %d steps%n",
        task, measuredSteps * f.batchSize() / secs, distinctRows / secs, measuredSteps / secs, measuredSteps);
    out.printf(Locale.ROOT, "Worker %d: wire per step: %.0f bytes (sent %d, received %d bytes in %d messages), ideal "
        + "%.0f bytes = %.1f rows x (%d x 2 + 8) bytes + %d dense parameters x 4 x 2, ratio %.4f%n", task, perStep,
        moved.bytesSent(), moved.bytesReceived(), moved.messages(), ideal, rowsPerStep, rowBytes, rg.denseParameters(),
        perStep / ideal);
  }

  /** Saves the whole model (each ps its shards) to a fresh directory, then restores it, and prints both times. */
  private static void timeCheckpoint(Saver saver, Session s, EmbeddingReplica.Flags f, PrintStream out) {
    Path dir;
    try {
      dir = Files.createTempDirectory(f.logDir() != null ? f.logDir() : Path.of(System.getProperty("java.io.tmpdir")),
          "timed-checkpoint-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make a directory for the timed checkpoint", e);
    }
    try {
      long t0 = System.nanoTime();
      String prefix = saver.save(s, dir, 0);
      double saveSecs = seconds(t0);
      long bytes = sizeOf(dir);
      long t1 = System.nanoTime();
      saver.restore(s, Path.of(prefix));
      double restoreSecs = seconds(t1);
      out.printf(Locale.ROOT, "Worker 0: checkpoint of the whole model: %,d bytes saved in %.2f s (%.0f MB/s), "
          + "restored in %.2f s (%.0f MB/s)%n", bytes, saveSecs, bytes / 1e6 / saveSecs, restoreSecs,
          bytes / 1e6 / restoreSecs);
    } finally {
      deleteTree(dir);
    }
  }

  private static long sizeOf(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // A temporary directory: the system cleans it eventually.
    }
  }

  private static double mean(double[] xs, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += xs[i];
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  private static double sinceJvmStart() {
    return (System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime()) / 1000.0;
  }

  private static double seconds(long sinceNanos) {
    return (System.nanoTime() - sinceNanos) / 1e9;
  }
}
