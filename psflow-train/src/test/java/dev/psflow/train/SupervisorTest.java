package dev.psflow.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker that is not the chief waits for the chief to initialize the model, polling the ready op:
 * it gets its session soon after the chief's init even with a long recovery_wait_secs (it polls
 * first after 100 ms, then backs off to recovery_wait_secs), and says what it waits for once, not
 * at every poll.
 */
@Timeout(60)
class SupervisorTest {
  private final List<Server> servers = new ArrayList<>();

  @AfterEach
  void stopCluster() {
    servers.forEach(Server::stop);
  }

  private record Model(Graph graph, Variable w, Operation init) {
    static Model build(ClusterSpec cluster, int task) {
      Graph g = new Graph();
      Ops tf = Ops.create(g).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:" + task));
      Variable w = tf.variable("w", tf.constant(Tensor.vector(1.0, 2.0)), true);
      return new Model(g, w, tf.globalVariablesInitializer());
    }
  }

  @Test
  void aWorkerWaitingWithALongRecoveryWaitStartsSoonAfterTheChiefInitializesAndSaysSoOnce() throws Exception {
    ClusterSpec cluster = FreePorts.localCluster(1, 2);
    servers.add(Server.create(cluster, "ps", 0));
    servers.add(Server.create(cluster, "worker", 0));
    servers.add(Server.create(cluster, "worker", 1));
    List<String> waiting = new CopyOnWriteArrayList<>();
    Model other = Model.build(cluster, 1);
    CompletableFuture<Session> otherSession = CompletableFuture.supplyAsync(() ->
        new Supervisor(other.graph(), false, other.init(), 30.0).onWaiting(waiting::add)
            .prepareOrWaitForSession(servers.get(2).target(), SessionOptions.DEFAULTS));
    while (waiting.isEmpty()) {
      Thread.sleep(10);
    }
    // A few polls go by, all waiting for the same variable.
    Thread.sleep(500);

    Model chief = Model.build(cluster, 0);
    try (Session c = new Supervisor(chief.graph(), true, chief.init(), 30.0)
        .prepareOrWaitForSession(servers.get(1).target(), SessionOptions.DEFAULTS)) {
      // Well within one recovery_wait_secs: the first polls come after 0.1, 0.2, 0.4 ... s.
      try (Session s = otherSession.get(15, TimeUnit.SECONDS)) {
        assertThat(s.runner().fetch(other.w()).run().get(0).doubleData()).containsExactly(1.0, 2.0);
      }
    }
    assertThat(waiting).containsExactly("Waiting for model to be ready: variables not initialized: w");
  }
}
