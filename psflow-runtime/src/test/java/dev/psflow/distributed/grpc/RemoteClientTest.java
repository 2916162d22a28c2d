package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.exec.RunMetadata;
import dev.psflow.exec.RunOptions;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.StepStats;
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
import org.junit.jupiter.api.Timeout;

/**
 * A client that is no task of the cluster: every call reaches the master over gRPC. The tests run
 * with one transport thread for the whole JVM (surefire sets psflow.grpc.eventLoopThreads=1), so a
 * master that waited on a transport thread — e.g. registering partitions inside RunStep — would
 * deadlock here every time.
 */
@Timeout(60)
class RemoteClientTest {
  private final List<Server> servers = new ArrayList<>();

  @BeforeEach
  void startCluster() {
    ClusterSpec cluster = FreePorts.localCluster(1, 2);
    servers.add(Server.create(cluster, "ps", 0));
    servers.add(Server.create(cluster, "worker", 0));
    servers.add(Server.create(cluster, "worker", 1));
  }

  @AfterEach
  void stopCluster() {
    servers.forEach(Server::stop);
  }

  @Test
  void theFirstStepRegistersPartitionsOnOtherTasksWhileItsRpcIsInFlight() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable v = tf.withDevice("/job:ps/task:0").variable("outside", tf.constant(new float[] {0, 0}));
    Output x = tf.withDevice("/job:worker/task:0").placeholder(DType.FLOAT32, Shape.of(2));
    Operation add = tf.withDevice("/job:ps/task:0").assignAdd(v, tf.withDevice("/job:worker/task:1").mul(x, x));
    try (Session s = GrpcSession.overTheWire(g, servers.get(1).target(), SessionOptions.DEFAULTS)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      for (int i = 0; i < 50; i++) {
        s.runner().feed(x, Tensor.vector(1f, 2f)).addTarget(add).run();
      }
      assertThat(s.runner().fetch(v).run().get(0)).isEqualTo(Tensor.vector(50f, 200f));
    }
  }

  @Test
  void manyStepsOfOneSignatureStartingAtOnceShareOnePlan() throws Exception {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable v = tf.withDevice("/job:ps/task:0").variable("shared", tf.constant(new long[] {0}));
    Operation inc = tf.withDevice("/job:ps/task:0").assignAdd(v, tf.withDevice("/job:worker/task:1").constant(new long[] {1}));
    try (Session s = GrpcSession.overTheWire(g, servers.get(0).target(), SessionOptions.DEFAULTS)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      List<Thread> clients = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        clients.add(Thread.ofVirtual().start(() -> s.runner().addTarget(inc).run()));
      }
      for (Thread t : clients) {
        t.join();
      }
      assertThat(s.runner().fetch(v).run().get(0)).isEqualTo(Tensor.vector(8L));
    }
  }

  @Test
  void aStepThatCannotBePlannedFailsWithItsCode() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output c = tf.withDevice("/job:worker/task:7").constant(1f);
    try (Session s = GrpcSession.overTheWire(g, servers.get(1).target(), SessionOptions.DEFAULTS)) {
      assertThatThrownBy(() -> s.runner().fetch(c).run())
          .isInstanceOf(StatusException.class)
          .hasMessageContaining("/job:worker/task:7");
    }
  }

  @Test
  void aTracedStepReportsEachTasksOpsAndTheBytesThatCrossed() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable v = tf.withDevice("/job:ps/task:0").variable("traced", tf.constant(new float[] {1, 2, 3}));
    Output doubled = tf.withDevice("/job:worker/task:1").withName("doubled").mul(v, tf.constant(2f));
    try (Session s = GrpcSession.overTheWire(g, servers.get(1).target(), SessionOptions.DEFAULTS)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      Session.Run r = s.runner().fetch(doubled)
          .setOptions(RunOptions.DEFAULTS.withTraceLevel(RunOptions.TraceLevel.FULL_TRACE)).runAndFetchMetadata();
      assertThat(r.outputs().get(0)).isEqualTo(Tensor.vector(2f, 4f, 6f));
      StepStats stats = r.metadata().stepStats();
      StepStats.DeviceStepStats ps = stats.device("/job:ps/replica:0/task:0/device:CPU:0");
      StepStats.DeviceStepStats worker = stats.device("/job:worker/replica:0/task:1/device:CPU:0");
      assertThat(ps.nodeStats()).extracting(StepStats.NodeExecStats::opType).contains("ReadVariableOp", "_Send");
      assertThat(worker.nodeStats()).anySatisfy(n -> {
        assertThat(n.opType()).isEqualTo("_Recv");
        assertThat(n.outputBytes()).isEqualTo(3 * 4); // the variable's value, pulled from the ps
      });
      assertThat(worker.nodeStats()).anySatisfy(n -> assertThat(n.nodeName()).isEqualTo("doubled"));
      assertThat(s.runner().fetch(doubled).runAndFetchMetadata().metadata()).isEqualTo(RunMetadata.EMPTY);
    }
  }

  @Test
  void aTracedStepReportsItsRpcsWithTheStepId() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable v = tf.withDevice("/job:ps/task:0").variable("rpcs", tf.constant(new float[] {1, 2, 3}));
    Ops w1 = tf.withDevice("/job:worker/task:1");
    Output doubled = w1.withName("doubled").mul(v, w1.constant(2f));
    // as in training, the ps's part waits for the worker's result, so it is still running when it serves the pull
    Operation update = tf.withDevice("/job:ps/task:0").assignAdd(v, doubled);
    // the master is worker 0's, which runs no part of the step: it reports only the RunGraph calls it made
    try (Session s = GrpcSession.overTheWire(g, servers.get(1).target(), SessionOptions.DEFAULTS)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      StepStats stats = s.runner().addTarget(update)
          .setOptions(RunOptions.DEFAULTS.withTraceLevel(RunOptions.TraceLevel.FULL_TRACE)).runAndFetchMetadata()
          .metadata().stepStats();
      assertThat(stats.stepId()).isNotZero();
      String ps = "/job:ps/replica:0/task:0";
      String worker1 = "/job:worker/replica:0/task:1";
      StepStats.RpcStats pulled = stats.device(worker1 + "/device:CPU:0").rpcStats().stream()
          .filter(r -> r.method().equals("RecvTensor") && r.side() == StepStats.Side.CLIENT).findFirst().orElseThrow();
      assertThat(pulled.side()).isEqualTo(StepStats.Side.CLIENT);
      assertThat(pulled.peer()).isEqualTo(ps);
      assertThat(pulled.detail()).startsWith(ps + "/device:CPU:0;1;" + worker1 + "/device:CPU:0;");
      assertThat(pulled.bytes()).isEqualTo(3 * 4);
      StepStats.RpcStats served = stats.device(ps + "/device:CPU:0").rpcStats().stream()
          .filter(r -> r.method().equals("RecvTensor") && r.side() == StepStats.Side.SERVER).findFirst().orElseThrow();
      assertThat(served.side()).isEqualTo(StepStats.Side.SERVER);
      assertThat(served.peer()).isEqualTo(worker1);
      assertThat(served.detail()).isEqualTo(pulled.detail());
      assertThat(served.startMicros()).isGreaterThanOrEqualTo(pulled.startMicros() - 1000); // one clock, one host
      StepStats.DeviceStepStats master = stats.device("/job:worker/replica:0/task:0/device:CPU:0");
      assertThat(master.nodeStats()).isEmpty();
      assertThat(master.rpcStats()).extracting(StepStats.RpcStats::method, StepStats.RpcStats::peer)
          .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("RunGraph", ps),
              org.assertj.core.groups.Tuple.tuple("RunGraph", worker1));
      assertThat(master.rpcStats()).allSatisfy(r -> assertThat(r.durationMicros()).isNotNegative());
    }
  }
}
