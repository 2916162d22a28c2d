package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.exec.Code;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Synchronous replicas on a cluster of Servers in this JVM (one ps, several workers, real gRPC
 * between tasks), each worker with its own graph and session as in the replica example: variables,
 * accumulators and the token queue on the ps, each worker's local step on the worker.
 */
class SyncReplicasClusterTest {
  private static final double LR = 0.1;
  private static final String PS = "/job:ps/task:0";

  private final List<Server> servers = new ArrayList<>();

  /** One worker's graph: minimize ½·Σ(w − x)², so that every gradient points to x. */
  private record Replica(Graph graph, Variable w, Variable step, Output x, Operation train, Operation init,
      SyncReplicasOptimizer opt, Operation closeTokens) {
    static Replica build(ClusterSpec cluster, int task, int replicasToAggregate, int workers) {
      Graph g = new Graph();
      Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:" + task));
      Variable w = tf.variable("w", tf.constant(Tensor.vector(1.0, 2.0)), true);
      Variable step = TrainingUtil.getOrCreateGlobalStep(tf);
      Output x = tf.placeholder(DType.FLOAT64, Shape.of(2));
      Output loss = tf.mul(tf.constant(0.5), tf.reduceSum(tf.square(tf.sub(w, x))));
      SyncReplicasOptimizer opt =
          new SyncReplicasOptimizer(new GradientDescentOptimizer(LR), replicasToAggregate, workers);
      Operation train = opt.minimize(loss, step);
      Operation closeTokens = tf.withName("close_sync_token_q").queueClose(g.operation("sync_token_q").output(0), false);
      return new Replica(g, w, step, x, train, tf.globalVariablesInitializer(), opt, closeTokens);
    }

    long run(Session s) {
      return s.runner().feed(x, Tensor.vector(2.0, 4.0)).addTarget(train).fetch(step).run().get(0).scalarLong();
    }
  }

  private ClusterSpec start(int workers) {
    ClusterSpec cluster = FreePorts.localCluster(1, workers);
    servers.add(Server.create(cluster, "ps", 0));
    for (int i = 0; i < workers; i++) {
      servers.add(Server.create(cluster, "worker", i));
    }
    return cluster;
  }

  @AfterEach
  void stopCluster() {
    servers.forEach(Server::stop);
  }

  private Session prepare(Replica r, int task) {
    boolean chief = task == 0;
    Supervisor sv = new Supervisor(r.graph(), chief, r.init(), 0.05)
        .withLocalInit(chief ? r.opt().chiefInitOp() : r.opt().localStepInitOp(), r.opt().readyForLocalInitOp());
    SessionOptions options = SessionOptions.DEFAULTS.withDeviceFilters(List.of("/job:ps", "/job:worker/task:" + task));
    return sv.prepareOrWaitForSession(servers.get(task + 1).target(), options);
  }

  /** The chief's part: init tokens, then its queue runner. */
  private static QueueRunner startChief(Replica r, Session s) {
    s.runner().addTarget(r.opt().getInitTokensOp()).run();
    QueueRunner qr = r.opt().chiefQueueRunner();
    qr.start(s);
    return qr;
  }

  /**
   * Ends training as TensorFlow's chief does when its queue runner stops: the token queue is closed,
   * so a worker still waiting for a token (its partner has left, and no more steps will be
   * aggregated) is released with OUT_OF_RANGE. Whichever worker is done first calls it, with its
   * own session; the chief's runner exists by then (no step completes without it).
   */
  private static void endTraining(QueueRunner[] chief, Replica r, Session s) {
    synchronized (chief) {
      if (chief[0] != null) {
        chief[0].stop();
      }
    }
    s.runner().addTarget(r.closeTokens()).run();
  }

  /** A worker's step failed because training ended: the token queue was closed, or its run cancelled. */
  private static boolean endedByClose(RuntimeException e) {
    return e instanceof StatusException s && (s.code() == Code.OUT_OF_RANGE || s.code() == Code.CANCELLED);
  }

  @Test
  void twoWorkersTrainTogetherWithEveryStepAveragingBothGradients() throws Exception {
    ClusterSpec cluster = start(2);
    int steps = 6;
    List<Replica> replicas = List.of(Replica.build(cluster, 0, 2, 2), Replica.build(cluster, 1, 2, 2));
    assertThat(replicas.get(0).opt().accumulators().get(0).op().device()).startsWith(PS);
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    QueueRunner[] chief = new QueueRunner[1];
    for (int task = 0; task < 2; task++) {
      int t = task;
      runs.add(CompletableFuture.runAsync(() -> {
        Replica r = replicas.get(t);
        try (Session s = prepare(r, t)) {
          if (t == 0) {
            synchronized (chief) {
              chief[0] = startChief(r, s);
            }
          }
          try {
            while (r.run(s) < steps) {
              // train
            }
          } catch (RuntimeException e) {
            if (!endedByClose(e)) {
              throw e;
            }
          }
          endTraining(chief, r, s);
        }
      }));
    }
    CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    chief[0].stop();
    assertThat(chief[0].exceptions()).isEmpty();

    Replica r = replicas.get(1);
    try (Session s = Session.open(r.graph(), servers.get(2).target())) {
      long gs;
      double w0;
      do { // an update the last gradients started may still be running on the ps
        gs = s.runner().fetch(r.step()).run().get(0).scalarLong();
        Thread.sleep(100);
        w0 = s.runner().fetch(r.w()).run().get(0).doubleData()[0];
      } while (gs != s.runner().fetch(r.step()).run().get(0).scalarLong());
      assertThat(gs).isBetween((long) steps, steps + 2L);
      double expected = 1.0;
      for (long i = 0; i < gs; i++) {
        expected -= LR * (expected - 2.0);
      }
      assertThat(w0).isCloseTo(expected, within(1e-9));
    }
  }

  @Test
  void withThreeWorkersAggregatingTwoTrainingGoesOnWhenOneWorkerStops() throws Exception {
    ClusterSpec cluster = start(3);
    int steps = 8;
    List<Replica> replicas = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      replicas.add(Replica.build(cluster, i, 2, 3));
    }
    QueueRunner[] chief = new QueueRunner[1];
    // -1 until worker 2 leaves; the others train on until 4 global steps after that, however the
    // machine's load orders the workers
    java.util.concurrent.atomic.AtomicLong stoppedAt = new java.util.concurrent.atomic.AtomicLong(-1);
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    for (int task = 0; task < 3; task++) {
      int t = task;
      runs.add(CompletableFuture.runAsync(() -> {
        Replica r = replicas.get(t);
        try (Session s = prepare(r, t)) {
          if (t == 0) {
            synchronized (chief) {
              chief[0] = startChief(r, s);
            }
          }
          long gs = 0;
          int local = 0;
          try {
            while (gs < steps || stoppedAt.get() < 0 || gs < stoppedAt.get() + 4) {
              gs = r.run(s);
              if (t == 2 && ++local == 2) {
                stoppedAt.set(gs); // worker 2 leaves after two steps (at global step 0 if both went into the first)
                return;
              }
            }
          } catch (RuntimeException e) {
            if (!endedByClose(e)) {
              throw e;
            }
          }
          endTraining(chief, r, s);
        }
      }));
    }
    CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    chief[0].stop();
    assertThat(chief[0].exceptions()).isEmpty();
    assertThat(stoppedAt.get()).isNotNegative();
    Replica r = replicas.get(0);
    try (Session s = Session.open(r.graph(), servers.get(1).target())) {
      assertThat(s.runner().fetch(r.step()).run().get(0).scalarLong())
          .isGreaterThanOrEqualTo(Math.max(steps, stoppedAt.get() + 4));
    }
  }
}
