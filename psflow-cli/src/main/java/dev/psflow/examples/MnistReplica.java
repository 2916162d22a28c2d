package dev.psflow.examples;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.data.Batch;
import dev.psflow.data.DataSet;
import dev.psflow.data.MnistDatasets;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.distributed.StallReporter;
import dev.psflow.distributed.grpc.WireStats;
import dev.psflow.exec.Runner;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.Tensor;
import dev.psflow.train.AdamOptimizer;
import dev.psflow.train.MonitoredTrainingSession;
import dev.psflow.train.MonitoredTrainingSessionBuilder;
import dev.psflow.train.NanTensorHook;
import dev.psflow.train.Optimizer;
import dev.psflow.train.PsStrategy;
import dev.psflow.train.ReplicaDeviceSetter;
import dev.psflow.train.SyncReplicasHook;
import dev.psflow.train.SyncReplicasOptimizer;
import dev.psflow.train.TracedSteps;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * TensorFlow's distributed MNIST replica example ({@code mnist_replica.py}), flag for flag and line
 * for line: the ps joins; worker 0 is the chief and initializes the model; the other workers wait
 * for it; each worker trains until the global step reaches {@code --train_steps} and reports the
 * validation cross entropy (the chief also the test accuracy). Asynchronously by default; with
 * {@code --sync_replicas} through a {@link SyncReplicasOptimizer} aggregating
 * {@code --replicas_to_aggregate} gradients (default: the number of workers) per step, the chief
 * running its local init, the init tokens and the chief queue runner, the others their local init.
 *
 * <p>Each worker trains in a {@link MonitoredTrainingSession}: the chief checkpoints into the log
 * dir every {@code --save_checkpoint_secs} (or {@code --save_checkpoint_steps}) and at the end, and
 * restores the latest checkpoint there when it starts; when a ps task is lost (killed, restarted)
 * every worker prints one line, waits for it, and goes on from the chief's latest checkpoint (in
 * sync mode with a new token queue and new accumulators).
 */
public final class MnistReplica {
  /** The example's flags. */
  public record Flags(String jobName, Integer taskIndex, String psHosts, String workerHosts, int hiddenUnits,
      int trainSteps, int batchSize, double learningRate, Path dataDir, boolean downloadOnly, boolean existingServers,
      int numGpus, boolean syncReplicas, Integer replicasToAggregate, Path logDir, double saveCheckpointSecs,
      Integer saveCheckpointSteps, String psStrategy, TaskSecurity security) {}

  /**
   * The graph one worker builds: the model, its train op, the initializer, the session config, and
   * in sync mode the {@link SyncReplicasOptimizer} (null otherwise).
   */
  public record ReplicaGraph(Graph graph, MnistModel model, Operation trainStep, Operation initOp,
      SessionOptions config, String workerDevice, SyncReplicasOptimizer sync) {}

  /**
   * What a worker reports besides its TensorFlow lines: the global step and loss after each run
   * (for a progress line), and when training ended. Called from the training loop's thread.
   */
  public interface ProgressListener {
    ProgressListener NONE = (step, loss) -> {};

    void step(long globalStep, double loss);

    default void finish() {}
  }

  /** How long a sync step may wait before the chief says who it waits for (--stall_report_secs). */
  public static final Duration DEFAULT_STALL_REPORT = Duration.ofSeconds(30);

  private MnistReplica() {}

  /** Builds worker {@code f.taskIndex()}'s graph, as the example does under its replica device setter. */
  public static ReplicaGraph buildGraph(Flags f, ClusterSpec cluster) {
    int task = f.taskIndex();
    String workerDevice = f.numGpus() > 0
        ? String.format(Locale.ROOT, "/job:worker/task:%d/gpu:%d", task, task % f.numGpus())
        : String.format(Locale.ROOT, "/job:worker/task:%d/cpu:0", task);
    Graph g = new Graph();
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, workerDevice, "/job:ps/cpu:0",
        PsStrategy.named(f.psStrategy(), cluster.numTasks("ps"))));
    MnistModel m = MnistModel.build(tf, f.hiddenUnits());
    Optimizer opt = new AdamOptimizer(f.learningRate());
    SyncReplicasOptimizer sync = null;
    if (f.syncReplicas()) {
      int numWorkers = cluster.numTasks("worker");
      int replicasToAggregate = f.replicasToAggregate() != null ? f.replicasToAggregate() : numWorkers;
      if (replicasToAggregate < 1) {
        throw new IllegalArgumentException("--replicas_to_aggregate must be positive, got " + replicasToAggregate);
      }
      sync = new SyncReplicasOptimizer(opt, replicasToAggregate, numWorkers, "mnist_sync_replicas");
      opt = sync;
    }
    Operation trainStep = opt.minimize(m.crossEntropy(), m.globalStep());
    Operation initOp = tf.globalVariablesInitializer();
    SessionOptions config = SessionOptions.DEFAULTS.withAllowSoftPlacement(true)
        .withDeviceFilters(List.of("/job:ps", "/job:worker/task:" + task));
    return new ReplicaGraph(g, m, trainStep, initOp, config, workerDevice, sync);
  }

  /** Runs one task of the example; returns when the task is done (a ps never is: it joins). */
  public static void run(Flags f, PrintStream out) throws InterruptedException {
    run(f, ServerOptions.DEFAULTS, out);
  }

  /** As {@link #run(Flags, PrintStream)}, the task's server made with {@code serverOptions}. */
  public static void run(Flags f, ServerOptions serverOptions, PrintStream out) throws InterruptedException {
    run(f, serverOptions, DEFAULT_STALL_REPORT, null, ProgressListener.NONE, out);
  }

  /**
   * As {@link #run(Flags, ServerOptions, PrintStream)}; in sync mode the chief prints one line naming
   * the replicas a step still waits for once it has waited longer than {@code stallReport} ({@link StallReporter}).
   */
  public static void run(Flags f, ServerOptions serverOptions, Duration stallReport, PrintStream out)
      throws InterruptedException {
    run(f, serverOptions, stallReport, null, ProgressListener.NONE, out);
  }

  /**
   * As {@link #run(Flags, ServerOptions, Duration, PrintStream)}; a worker traces the runs
   * {@code trace} covers (null: none) and tells {@code progress} of each step.
   */
  public static void run(Flags f, ServerOptions serverOptions, Duration stallReport, TracedSteps trace,
      ProgressListener progress, PrintStream out) throws InterruptedException {
    // A ps task only serves its variables (server.join() below), so it leaves the data alone: reading
    // it cost a quarter second of a core and ~100 MB of the ps's peak memory, and the chief waits
    // for the ps before anything.
    // (TensorFlow's script reads it in every task; nothing a ps prints or does depends on it.)
    boolean servesOnly = "ps".equals(f.jobName()) && !f.existingServers() && !f.downloadOnly();
    MnistDatasets mnist = servesOnly ? null
        : MnistDatasets.read(f.dataDir() != null ? f.dataDir() : MnistDatasets.defaultDataDir(), true);
    if (f.downloadOnly()) {
      return;
    }
    if (f.jobName() == null || f.jobName().isEmpty()) {
      throw new IllegalArgumentException("Must specify an explicit `job_name`");
    }
    if (f.taskIndex() == null) {
      throw new IllegalArgumentException("Must specify an explicit `task_index`");
    }
    int task = f.taskIndex();
    out.println("job name = " + f.jobName());
    out.println("task index = " + task);
    ClusterSpec cluster = ClusterSpec.fromFlags(f.psHosts(), f.workerHosts());
    cluster.address(f.jobName(), task); // fails naming the job and index when they are not in the cluster
    List<String> workerSpec = cluster.tasks("worker");
    Server server = null;
    if (!f.existingServers()) {
      server = Server.create(cluster, f.jobName(), task,
          f.security().serverOptions(serverOptions, cluster, f.jobName(), task, f.logDir()));
      if (f.jobName().equals("ps")) {
        server.join();
        return;
      }
    }
    ReplicaGraph rg = buildGraph(f, cluster);
    MnistModel m = rg.model();
    boolean isChief = task == 0;
    SyncReplicasOptimizer sync = rg.sync();
    SyncReplicasHook syncHook = sync != null ? sync.makeSessionRunHook(isChief) : null;
    out.println(isChief ? "Worker " + task + ": Initializing session..."
        : "Worker " + task + ": Waiting for session to be initialized...");
    String target = server != null ? server.target() : "grpc://" + workerSpec.get(task);
    if (f.existingServers()) {
      out.println("Using existing server at: " + target);
    }
    Server local = server;
    try (MnistReplicaSummaries summaries = isChief ? MnistReplicaSummaries.open(f.logDir(), out, task)
            : MnistReplicaSummaries.disabled();
        MonitoredTrainingSession sess = openSession(f, rg, target, summaries.logDir(), syncHook, out);
        StallReporter stalls = sync != null && isChief && local != null // null: none (not closed)
            ? StallReporter.start(cluster, local::peer, stallReport, line -> out.println("Worker " + task + ": " + line))
            : null) {
      // In sync mode the hook has run the local init, and on the chief the init tokens and the queue runner.
      out.println("Worker " + task + ": Session initialization complete.");
      try {
        Output dropped = sync != null && isChief ? sync.droppedGradients() : null;
        train(f, out, mnist.train(), sess, m, rg.trainStep(), task, summaries, dropped, trace, progress);
      } finally {
        if (syncHook != null) {
          syncHook.stopQueueRunner();
        }
      }
      if (sync != null && isChief) {
        sess.runWithoutHooks(s -> {
          releaseWorkers(out, s, sync);
          return null;
        });
      }
      Tensor xent = sess.runWithoutHooks(s -> s.runner().feed(m.x(), mnist.validation().images())
          .feed(m.labels(), mnist.validation().labels()).fetch(m.crossEntropy()).run().get(0));
      out.printf(Locale.ROOT, "After %d training step(s), validation cross entropy = %g%n", f.trainSteps(), xent.scalarDouble());
      if (isChief) {
        Tensor acc = sess.runWithoutHooks(s -> s.runner().feed(m.x(), mnist.test().images())
            .feed(m.labels(), mnist.test().labels()).fetch(m.accuracy()).run().get(0));
        out.printf(Locale.ROOT, "test accuracy = %.4f%n", acc.scalarDouble());
      }
    } finally {
      if (server != null) {
        server.stop();
      }
    }
  }

  /**
   * The worker's monitored session: the chief (task 0) initializes or restores from {@code logDir}
   * and checkpoints there; the others poll readiness every second. Fails on a NaN loss. Its waiting,
   * restore and recovery lines go to {@code out}. (The training loop stops at {@code --train_steps}
   * itself, on the global step each run fetches, as the original does; a StopAtStepHook would stop
   * a step earlier when that fetch reads the step before the run's own increment.)
   */
  private static MonitoredTrainingSession openSession(Flags f, ReplicaGraph rg, String target, Path logDir,
      SyncReplicasHook syncHook, PrintStream out) {
    int task = f.taskIndex();
    MnistModel m = rg.model();
    // With --existing_servers this process is no task: a client of the worker's master, with the client certificate.
    SessionOptions options = f.existingServers() ? f.security().client(rg.config()) : rg.config();
    MonitoredTrainingSessionBuilder b = MonitoredTrainingSession.builder(rg.graph()).target(target)
        .options(options).chief(task == 0).initOp(rg.initOp()).globalStep(m.globalStep()).recoveryWaitSecs(1.0)
        .log(line -> out.println("Worker " + task + ": " + line))
        .hook(new NanTensorHook(m.crossEntropy(), m.globalStep(), true));
    if (syncHook != null) {
      b.hook(syncHook);
    }
    if (logDir != null) {
      b.checkpointDir(logDir);
      if (f.saveCheckpointSteps() != null) {
        b.saveCheckpointSteps(f.saveCheckpointSteps());
      } else {
        b.saveCheckpointSecs(f.saveCheckpointSecs());
      }
    }
    return b.build();
  }

  /** Trains until the global step reaches --train_steps; {@code dropped} (sync chief) is summarized now and then. */
  private static void train(Flags f, PrintStream out, DataSet train, MonitoredTrainingSession sess, MnistModel m,
      Operation trainStep, int task, MnistReplicaSummaries summaries, Output dropped, TracedSteps trace,
      ProgressListener progress) {
    double begin = now();
    out.printf(Locale.ROOT, "Training begins @ %f%n", begin);
    WireStats.Snapshot wireBefore = WireStats.snapshot();
    long firstGlobal = -1;
    long lastGlobal = 0;
    long localStep = 0;
    while (true) {
      Batch b = train.nextBatch(f.batchSize());
      Runner runner = sess.runner().feed(m.x(), b.images()).feed(m.labels(), b.labels())
          .addTarget(trainStep).fetch(m.globalStep()).fetch(m.crossEntropy());
      List<Tensor> r;
      if (trace != null && trace.covers(firstGlobal < 0 ? -1 : lastGlobal)) {
        Session.Run run = runner.setOptions(TracedSteps.OPTIONS).runAndFetchMetadata();
        r = run.outputs();
        trace.add(run.metadata().stepStats(), r.get(0).scalarLong());
      } else {
        r = runner.run();
      }
      long step = r.get(0).scalarLong();
      summaries.afterStep(step, r.get(1).scalarDouble());
      firstGlobal = firstGlobal < 0 ? step : firstGlobal;
      lastGlobal = step;
      localStep++;
      if (dropped != null && localStep % MnistReplicaSummaries.EVERY_STEPS == 0) {
        Tensor n = sess.runWithoutHooks(s -> s.runner().fetch(dropped).run().get(0));
        summaries.droppedStaleGradients(step, n.scalarLong());
      }
      out.println(StepLine.of(System.currentTimeMillis(), task, localStep, step));
      progress.step(step, r.get(1).scalarDouble());
      boolean end = step >= f.trainSteps();
      String traced = trace != null ? trace.afterRun(step, end) : null;
      if (traced != null) {
        out.println("Worker " + task + ": " + traced);
      }
      if (end) {
        break;
      }
    }
    progress.finish();
    summaries.atEnd();
    double end = now();
    WireStats.Snapshot wire = WireStats.snapshot().minus(wireBefore);
    out.printf(Locale.ROOT, "Worker %d: wire during training: sent %d bytes, received %d bytes in %d messages, "
        + "%d local steps, global steps %d..%d%n", task, wire.bytesSent(), wire.bytesReceived(), wire.messages(),
        localStep, firstGlobal, lastGlobal);
    out.printf(Locale.ROOT, "Training ends @ %f%n", end);
    out.printf(Locale.ROOT, "Training elapsed time: %f s%n", end - begin);
  }

  /**
   * After the chief's last update no token comes any more: a worker whose last step started before
   * it would wait forever. One more token per worker lets those steps end (their gradients are never
   * applied). Also reports the stale gradients the accumulators dropped.
   */
  private static void releaseWorkers(PrintStream out, Session sess, SyncReplicasOptimizer sync) {
    sess.runner().addTarget(sync.getInitTokensOp(sync.totalNumReplicas())).run();
    long dropped = sess.runner().fetch(sync.droppedGradients()).run().get(0).scalarLong();
    out.printf(Locale.ROOT, "Worker 0: sync replicas: %d of %d replicas aggregated per step, %d stale gradients "
        + "dropped (summed over %d variables)%n", sync.replicasToAggregate(), sync.totalNumReplicas(), dropped,
        sync.accumulators().size());
  }

  private static double now() {
    return System.currentTimeMillis() / 1000.0;
  }
}
