package dev.psflow.distributed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One ps and two workers as Servers in this JVM, on 127.0.0.1 with free ports, over real gRPC. */
class ClusterIntegrationTest {
  private ClusterSpec cluster;
  private final List<Server> servers = new ArrayList<>();

  @BeforeEach
  void startCluster() {
    cluster = FreePorts.localCluster(1, 2);
    servers.add(Server.create(cluster, "ps", 0));
    servers.add(Server.create(cluster, "worker", 0));
    servers.add(Server.create(cluster, "worker", 1));
  }

  @AfterEach
  void stopCluster() {
    servers.forEach(Server::stop);
  }

  @Test
  void variablesOnThePsAreSharedByEveryWorkersGraph() {
    // worker 0's client creates and initializes the variable; worker 1's own graph reaches it by name
    Graph g0 = new Graph();
    Ops tf0 = Ops.create(g0);
    Variable w0 = tf0.withDevice("/job:ps/task:0").variable("w", tf0.constant(new float[] {2, 2}));
    Operation init = tf0.globalVariablesInitializer();
    Operation add = tf0.withDevice("/job:worker/task:0").assignAdd(w0, tf0.constant(new float[] {1, 1}));

    Graph g1 = new Graph();
    Ops tf1 = Ops.create(g1);
    Variable w1 = tf1.withDevice("/job:ps/task:0").variable("w", tf1.constant(new float[] {0, 0}));
    Output read1 = tf1.withDevice("/job:worker/task:1").identity(w1);

    try (Session s0 = Session.open(g0, servers.get(1).target());
        Session s1 = Session.open(g1, servers.get(2).target())) {
      s0.runner().addTarget(init).run();
      s0.runner().addTarget(add).run();
      assertThat(s1.runner().fetch(read1).run().get(0)).isEqualTo(Tensor.vector(3f, 3f));
    }
  }

  @Test
  void feedsTravelToThePsAndFetchesComeBack() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable v = tf.withDevice("/job:ps/task:0").variable("v", tf.constant(new float[] {1, 2}));
    Output x = tf.withDevice("/job:worker/task:1").placeholder(DType.FLOAT32, Shape.of(2));
    Operation add = tf.assignAdd(v, x);
    try (Session s = Session.open(g, servers.get(1).target())) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      for (int i = 0; i < 20; i++) {
        s.runner().feed(x, Tensor.vector(1f, 1f)).addTarget(add).run();
      }
      assertThat(s.runner().fetch(v).run().get(0)).isEqualTo(Tensor.vector(21f, 22f));
    }
    for (Server srv : servers) {
      assertThat(srv.worker().liveSteps()).as("step state left on " + srv.task()).isZero();
    }
  }

  @Test
  void anErrorOnThePsComesBackWithItsCodeAndTask() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable v = tf.withDevice("/job:ps/task:0").variable("never_initialized", tf.constant(1f));
    Output read = tf.withDevice("/job:worker/task:0").identity(v);
    try (Session s = Session.open(g, servers.get(1).target())) {
      assertThatThrownBy(() -> s.runner().fetch(read).run())
          .isInstanceOf(StatusException.class)
          .hasMessageContaining("uninitialized variable never_initialized")
          .hasMessageContaining("/job:ps/replica:0/task:0")
          .satisfies(e -> assertThat(((StatusException) e).code()).isEqualTo(Code.FAILED_PRECONDITION));
    }
  }

  @Test
  void deviceFiltersKeepASessionToThePsAndItsOwnTask() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    tf.withDevice("/job:worker/task:0").constant(1f);
    Output c = tf.withDevice("/job:worker/task:1").constant(2f);
    SessionOptions opts = SessionOptions.DEFAULTS.withDeviceFilters(List.of("/job:ps", "/job:worker/task:1"));
    try (Session s = Session.open(g, servers.get(2).target(), opts)) {
      assertThat(s.runner().fetch(c).run().get(0).scalarDouble()).isEqualTo(2.0);
    }
  }
}
