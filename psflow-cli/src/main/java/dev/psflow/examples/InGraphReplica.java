package dev.psflow.examples;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.data.Batch;
import dev.psflow.data.DataSet;
import dev.psflow.data.MnistDatasets;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.distributed.grpc.WireStats;
import dev.psflow.exec.Runner;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.ReadVariableOp;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import dev.psflow.train.AdamOptimizer;
import dev.psflow.train.GradAndVar;
import dev.psflow.train.Optimizer;
import dev.psflow.train.ReplicaDeviceSetter;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * In-graph replication of the MNIST replica model: ONE client (worker 0) builds one graph with the
 * variables on the ps tasks and a tower — the forward and backward pass on its own batch — per
 * worker task under {@code /job:worker/task:i}; each step the towers' gradients are averaged on
 * the ps, next to each variable, and applied once (Adam), so the step is synchronous by
 * construction. The other workers only serve (their server runs what the client's master sends
 * them) until the client marks them done; the ps tasks join. Compare {@link MnistReplica}
 * (between-graph): there each worker is a client building its own graph.
 *
 * <p>Each tower's backward pass lands on its own worker because gradient ops request the device of
 * the forward op they differentiate, so only gradients (and parameters) cross the wire, never a
 * tower's activations.
 *
 * <pre>{@code
 * InGraph g = InGraphReplica.buildGraph(flags, ClusterSpec.fromFlags(psHosts, workerHosts));
 * session.runner().feed(g.towers().get(1).x(), images1)...addTarget(g.trainStep()).run();
 * }</pre>
 */
public final class InGraphReplica {
  /** The program's flags. */
  public record Flags(String jobName, Integer taskIndex, String psHosts, String workerHosts, int hiddenUnits,
      int trainSteps, int batchSize, double learningRate, Path dataDir, TaskSecurity security) {}

  /**
   * The client's graph: one {@link MnistModel} tower per worker (sharing the variables), the train
   * op applying the averaged gradients, the global step read after it, the initializer, and per
   * worker the flag that tells its server the client is done.
   */
  public record InGraph(Graph graph, List<MnistModel> towers, Operation trainStep, Output stepAfterTrain,
      Operation initOp, List<Variable> doneFlags, Operation markDone, SessionOptions config) {}

  private InGraphReplica() {}

  /** Builds the client's graph for the cluster's ps and worker tasks. */
  public static InGraph buildGraph(Flags f, ClusterSpec cluster) {
    if (f.batchSize() <= 0) {
      throw new IllegalArgumentException("--batch_size must be positive, got " + f.batchSize());
    }
    int workers = cluster.numTasks("worker");
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    // Variables round-robin over the ps tasks, their initial values on the client's task.
    MnistModel.Variables vars = MnistModel.Variables.create(
        tf.withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0")), f.hiddenUnits());
    Optimizer opt = new AdamOptimizer(f.learningRate());
    List<MnistModel> towers = new ArrayList<>();
    List<List<GradAndVar>> towerGrads = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      MnistModel tower = MnistModel.tower(tf.withDevice(workerDevice(i)).withSubScope("tower_" + i), vars);
      towers.add(tower);
      towerGrads.add(opt.computeGradients(tower.crossEntropy()));
    }
    Operation trainStep = opt.applyGradients(average(tf, towerGrads), vars.globalStep());
    Output stepAfterTrain = ReadVariableOp.create(tf.withControlDependencies(trainStep)
        .withColocation(vars.globalStep().handle().op()).withName("global_step_after_train").scope(),
        vars.globalStep().handle(), DType.INT64);
    List<Variable> doneFlags = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      doneFlags.add(doneFlag(g, i));
    }
    List<Operation> marks = new ArrayList<>();
    for (Variable done : doneFlags) {
      marks.add(tf.assign(done, tf.constant(Tensor.scalar(true))));
    }
    Operation markDone = tf.withName("mark_done").group(marks);
    return new InGraph(g, towers, trainStep, stepAfterTrain, tf.globalVariablesInitializer(), doneFlags, markDone,
        SessionOptions.DEFAULTS);
  }

  /**
   * The mean of the towers' gradients of each variable, built with the variable (on its ps): each
   * worker sends its gradients there once, and one apply per variable follows.
   */
  private static List<GradAndVar> average(Ops tf, List<List<GradAndVar>> towerGrads) {
    List<GradAndVar> out = new ArrayList<>();
    int towers = towerGrads.size();
    for (int v = 0; v < towerGrads.get(0).size(); v++) {
      Variable var = towerGrads.get(0).get(v).variable();
      List<Output> grads = new ArrayList<>();
      for (List<GradAndVar> tower : towerGrads) {
        grads.add(tower.get(v).gradient().asOutput());
      }
      Ops near = tf.withColocation(var.handle().op()).withSubScope("average_" + var.name());
      Output mean = near.mul(near.addN(grads), near.constant(1.0f / towers));
      out.add(new GradAndVar(mean, var));
    }
    return out;
  }

  /**
   * Worker {@code task}'s "the client is done" flag, on that worker: the client sets it at the end;
   * the worker's own session polls it. The same op in both graphs is the same resource on the task.
   */
  private static Variable doneFlag(Graph g, int task) {
    Ops on = Ops.create(g).withDevice(workerDevice(task));
    return on.variable("in_graph_done_worker_" + task, on.constant(Tensor.scalar(false)), false);
  }

  private static String workerDevice(int task) {
    return "/job:worker/task:" + task;
  }

  /** Runs one task: the client on worker 0, a serving worker on the others, a joining ps. */
  public static void run(Flags f, PrintStream out) throws InterruptedException {
    run(f, ServerOptions.DEFAULTS, out);
  }

  /** As {@link #run(Flags, PrintStream)}, the task's server made with {@code serverOptions}. */
  public static void run(Flags f, ServerOptions serverOptions, PrintStream out) throws InterruptedException {
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
    boolean client = f.jobName().equals("worker") && task == 0;
    // Read the data before the server starts, so a missing data set ends the task at once.
    MnistDatasets mnist = client
        ? MnistDatasets.read(f.dataDir() != null ? f.dataDir() : MnistDatasets.defaultDataDir(), true) : null;
    Server server = Server.create(cluster, f.jobName(), task,
        f.security().serverOptions(serverOptions, cluster, f.jobName(), task, null));
    try {
      if (f.jobName().equals("ps")) {
        server.join();
      } else if (client) {
        train(f, cluster, mnist, server.target(), out);
      } else {
        serveUntilDone(server, task, out);
      }
    } finally {
      server.stop();
    }
  }

  private static void train(Flags f, ClusterSpec cluster, MnistDatasets mnist, String target, PrintStream out) {
    InGraph ig = buildGraph(f, cluster);
    int towers = ig.towers().size();
    out.printf("Worker 0: in-graph client: %d towers on %s, variables on /job:ps%n", towers,
        String.join(", ", ig.towers().stream().map(t -> t.x().op().device()).toList()));
    out.println("Worker 0: Initializing session...");
    try (Session s = Session.open(ig.graph(), target, ig.config())) {
      s.runner().addTarget(ig.initOp()).run();
      out.println("Worker 0: Session initialization complete.");
      DataSet train = mnist.train();
      double begin = now();
      out.printf(Locale.ROOT, "Training begins @ %f%n", begin);
      WireStats.Snapshot wireBefore = WireStats.snapshot();
      long step = 0;
      long localStep = 0;
      while (step < f.trainSteps()) {
        Runner r = s.runner().addTarget(ig.trainStep()).fetch(ig.stepAfterTrain());
        for (MnistModel t : ig.towers()) {
          Batch b = train.nextBatch(f.batchSize());
          r.feed(t.x(), b.images()).feed(t.labels(), b.labels());
        }
        step = r.run().get(0).scalarLong();
        localStep++;
        out.println(StepLine.of(System.currentTimeMillis(), 0, localStep, step));
      }
      double end = now();
      WireStats.Snapshot wire = WireStats.snapshot().minus(wireBefore);
      out.printf(Locale.ROOT, "Worker 0: wire during training: sent %d bytes, received %d bytes in %d messages, "
          + "%d steps of %d towers%n", wire.bytesSent(), wire.bytesReceived(), wire.messages(), localStep, towers);
      out.printf(Locale.ROOT, "Training ends @ %f%n", end);
      out.printf(Locale.ROOT, "Training elapsed time: %f s%n", end - begin);
      MnistModel first = ig.towers().get(0);
      Tensor xent = s.runner().feed(first.x(), mnist.validation().images())
          .feed(first.labels(), mnist.validation().labels()).fetch(first.crossEntropy()).run().get(0);
      out.printf(Locale.ROOT, "After %d training step(s), validation cross entropy = %g%n", f.trainSteps(),
          xent.scalarDouble());
      Tensor acc = s.runner().feed(first.x(), mnist.test().images())
          .feed(first.labels(), mnist.test().labels()).fetch(first.accuracy()).run().get(0);
      out.printf(Locale.ROOT, "test accuracy = %.4f%n", acc.scalarDouble());
      s.runner().addTarget(ig.markDone()).run();
    }
  }

  /** A worker other than the client: its server runs the client's tower; polls its own done flag. */
  private static void serveUntilDone(Server server, int task, PrintStream out) throws InterruptedException {
    Graph g = new Graph();
    Variable done = doneFlag(g, task);
    Output initialized = Ops.create(g).isVariableInitialized(done);
    out.printf("Worker %d: serving tower %d of the in-graph client until it is done%n", task, task);
    SessionOptions own = SessionOptions.DEFAULTS.withDeviceFilters(List.of(workerDevice(task)));
    try (Session s = Session.open(g, server.target(), own)) {
      while (!(s.runner().fetch(initialized).run().get(0).boolData()[0]
          && s.runner().fetch(done).run().get(0).boolData()[0])) {
        Thread.sleep(100);
      }
    }
    out.printf("Worker %d: the client is done%n", task);
  }

  private static double now() {
    return System.currentTimeMillis() / 1000.0;
  }
}
