package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ps and two workers as Servers in this JVM, training asynchronously through monitored sessions;
 * mid-training the ps Server is stopped and a new one started on its port, without its variables,
 * as a restarted ps process would be. Both workers recover; the chief restores the latest checkpoint.
 */
class MonitoredTrainingSessionClusterTest {
  private static final int LAST_STEP = 150;
  private static final int CHECKPOINT_STEPS = 10;
  private static final long KILL_AT = 60;
  private static final long CREATED = -1;

  @TempDir Path dir;

  private final ClusterSpec cluster = FreePorts.localCluster(1, 2);
  private final List<Server> servers = new ArrayList<>(List.of(Server.create(cluster, "ps", 0),
      Server.create(cluster, "worker", 0), Server.create(cluster, "worker", 1)));
  private final ExecutorService pool = Executors.newFixedThreadPool(2);
  private final CountDownLatch bothTraining = new CountDownLatch(2);

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @AfterEach
  void stop() {
    pool.shutdownNow();
    servers.forEach(Server::stop);
  }

  /**
   * What one worker saw: the global step after each of its runs, read exactly, with {@link #CREATED}
   * at each session creation; its log lines; its recoveries.
   */
  private record Trace(List<Long> steps, List<String> log, int recoveries) {}

  /**
   * Worker {@code task}'s graph: loss = Σ(w − x)² with w[4] on the ps, gradient descent, as the
   * replica example lays it out; in sync mode through a SyncReplicasOptimizer aggregating both workers.
   */
  private Trace train(int task, CountDownLatch reachedKillStep, boolean syncMode) {
    Graph g = new Graph();
    String workerDevice = "/job:worker/task:" + task;
    Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, workerDevice, "/job:ps/cpu:0", null));
    Variable step = TrainingUtil.getOrCreateGlobalStep(tf);
    Variable w = tf.variable("w", tf.zeros(Shape.of(4), DType.FLOAT32));
    Output x = tf.withName("x").placeholder(DType.FLOAT32, Shape.of(4));
    Output loss = tf.reduceSum(tf.square(tf.sub(w, x)), new int[] {0});
    Optimizer opt = new GradientDescentOptimizer(0.05);
    SyncReplicasOptimizer sync = syncMode ? new SyncReplicasOptimizer(opt, 2, 2) : null;
    Operation trainOp = (sync != null ? sync : opt).minimize(loss, step);
    SyncReplicasHook syncHook = sync != null ? sync.makeSessionRunHook(task == 0) : null;
    Operation releaseWorkers = sync != null ? sync.getInitTokensOp(2) : null;
    List<Long> steps = Collections.synchronizedList(new ArrayList<>());
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    SessionRunHook recordStep = new SessionRunHook() {
      private boolean started;

      @Override
      public void afterCreateSession(dev.psflow.exec.Session s) {
        steps.add(CREATED);
      }

      @Override
      public void afterRun(SessionRunContext c, List<Tensor> v) {
        long s = TrainingUtil.globalStep(c.session(), step);
        steps.add(s);
        // Both workers train before either goes on (on a loaded machine one could plan its first
        // steps while the other races to the end), and the ps dies once the chief has trained
        // (and checkpointed) past KILL_AT.
        if (!started) {
          started = true;
          bothTraining.countDown();
          awaitQuietly(bothTraining);
        }
        if (task == 0 && s >= KILL_AT) {
          reachedKillStep.countDown();
        }
      }
    };
    SessionOptions options = SessionOptions.DEFAULTS.withDeviceFilters(List.of("/job:ps", workerDevice));
    Tensor target = Tensor.of(new float[] {1, 2, 3, 4}, 4);
    try (MonitoredTrainingSession mts = MonitoredTrainingSession.builder(g).target(servers.get(1 + task).target())
        .options(options).chief(task == 0).checkpointDir(dir).saveCheckpointSteps(CHECKPOINT_STEPS).globalStep(step)
        .recoveryWaitSecs(0.2).log(log::add).hook(recordStep).hook(new StopAtStepHook(step, LAST_STEP))
        .hooks(syncHook != null ? List.of(syncHook) : List.of()).build()) {
      while (!mts.shouldStop()) {
        mts.run(r -> r.feed(x, target).addTarget(trainOp));
      }
      if (syncHook != null && syncHook.isChief()) {
        // No more updates: tokens for the other worker's last step, which may be waiting for one.
        syncHook.stopQueueRunner();
        mts.runWithoutHooks(s -> s.runner().addTarget(releaseWorkers).run());
      }
      return new Trace(List.copyOf(steps), List.copyOf(log), mts.recoveries());
    }
  }

  @Test
  @Timeout(180)
  void bothWorkersSurviveAPsRestartAndTheChiefRestoresTheLatestCheckpoint() throws Exception {
    trainThroughAPsRestart(false);
  }

  @Test
  @Timeout(180)
  void inSyncModeTheRestartedPsGetsANewTokenQueueAndNewAccumulators() throws Exception {
    trainThroughAPsRestart(true);
  }

  private void trainThroughAPsRestart(boolean syncMode) throws Exception {
    CountDownLatch reached = new CountDownLatch(1);
    Future<Trace> chief = pool.submit(() -> train(0, reached, syncMode));
    Future<Trace> other = pool.submit(() -> train(1, reached, syncMode));
    assertThat(reached.await(120, TimeUnit.SECONDS)).isTrue();

    servers.get(0).stop(); // the ps process dies with its variables...
    Thread.sleep(300);
    servers.set(0, Server.create(cluster, "ps", 0)); // ...and comes back on the same port, empty

    Trace c = chief.get(120, TimeUnit.SECONDS);
    Trace o = other.get(120, TimeUnit.SECONDS);
    assertThat(c.recoveries()).isPositive();
    assertThat(o.recoveries()).isPositive();
    assertThat(c.log()).anyMatch(l -> l.startsWith("lost /job:ps/replica:0/task:0 (") && l.endsWith("; recovering"));
    assertThat(o.log()).anyMatch(l -> l.startsWith("lost /job:ps/replica:0/task:0 (") && l.endsWith("; recovering"));

    // The checkpoint the chief restored after the restart, and the global step where the ps died.
    long restored = -1;
    Pattern restoredLine = Pattern.compile("Restored model from checkpoint .*model\\.ckpt-(\\d+)");
    for (String l : c.log()) {
      Matcher m = restoredLine.matcher(l);
      if (m.matches()) {
        restored = Long.parseLong(m.group(1));
      }
    }
    assertThat(restored).as("chief log: %s", c.log()).isGreaterThan(0);
    long beforeKill = Math.max(session(c.steps(), 0).stream().mapToLong(Long::longValue).max().orElse(-1),
        session(o.steps(), 0).stream().mapToLong(Long::longValue).max().orElse(-1));
    System.out.printf((syncMode ? "sync" : "async") + " ps restart: global step %d when the ps died, restored model.ckpt-%d: %d steps lost "
        + "(checkpoint every %d steps)%nchief: %s%nother: %s%n", beforeKill, restored, beforeKill - restored,
        CHECKPOINT_STEPS, c.log(), o.log());
    // Nothing is lost but the steps since the last checkpoint (plus a step in flight per worker).
    // The chief checkpoints after its own steps, so in async mode the interval also stretches by the
    // other worker's steps between two of the chief's (more of them while a save is in flight).
    List<Long> chiefSteps = session(c.steps(), 0);
    long widestChiefGap = 1;
    for (int i = 1; i < chiefSteps.size(); i++) {
      widestChiefGap = Math.max(widestChiefGap, chiefSteps.get(i) - chiefSteps.get(i - 1));
    }
    assertThat(beforeKill - restored).isBetween(0L, CHECKPOINT_STEPS + widestChiefGap + 2);
    // Training went on from the restored step and ended at the requested global step.
    // (In sync mode the chief's queue runner applies the update, maybe after the run returned.)
    // (In async mode the other worker may be first to train after the restore: take the earlier.)
    long firstAfter = Math.min(session(c.steps(), 1).get(0),
        syncMode ? Long.MAX_VALUE : session(o.steps(), 1).stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE));
    assertThat(firstAfter).isBetween(syncMode ? restored : restored + 1, restored + 3);
    assertThat(Math.max(last(c.steps()), last(o.steps()))).isGreaterThanOrEqualTo(LAST_STEP);
  }

  /** The global steps a worker saw in its {@code n}-th session (0: the first). */
  private static List<Long> session(List<Long> steps, int n) {
    int start = -1;
    for (int i = 0, seen = -1; i < steps.size(); i++) {
      if (steps.get(i) == CREATED && ++seen == n) {
        start = i + 1;
      } else if (steps.get(i) == CREATED && seen > n) {
        return steps.subList(start, i);
      }
    }
    assertThat(start).as("session %d in %s", n, steps).isPositive();
    return steps.subList(start, steps.size());
  }

  private static long last(List<Long> steps) {
    return steps.get(steps.size() - 1);
  }
}
