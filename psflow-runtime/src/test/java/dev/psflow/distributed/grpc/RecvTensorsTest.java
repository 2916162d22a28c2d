package dev.psflow.distributed.grpc;

import static dev.psflow.distributed.grpc.ChunkedRecvTensorTest.awaitLiveSteps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.Worker;
import dev.psflow.distributed.WorkerClient;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.sendrecv.RendezvousKeys;
import dev.psflow.ops.sendrecv.Send;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RecvTensors over real gRPC: several pulls of one step from one task in one call, each still a
 * pull of its own. Each key's tensor arrives as soon as its step sends it, in whatever order
 * (so a tensor the peer sends only after another of the same call was received cannot deadlock
 * it); a step aborted on either side ends every pull of the call, and the peer forgets them.
 */
class RecvTensorsTest {
  private static final String PS = "/job:ps/replica:0/task:0/device:CPU:0";
  private static final String WORKER = "/job:worker/replica:0/task:0/device:CPU:0";

  private ClusterSpec cluster;
  private Server ps;
  private Server worker;
  private final GrpcTransport wire = new GrpcTransport();
  private WorkerClient psClient;

  @BeforeEach
  void startCluster() {
    cluster = FreePorts.localCluster(1, 1);
    ps = Server.create(cluster, "ps", 0);
    worker = Server.create(cluster, "worker", 0);
    psClient = wire.connectWorker("/job:ps/replica:0/task:0", "127.0.0.1:" + ps.port());
  }

  @AfterEach
  void stopCluster() {
    wire.close();
    worker.stop();
    ps.stop();
  }

  @Test
  void eachKeyArrivesWhenItsStepSendsItWhateverTheOrder() throws Exception {
    List<CompletableFuture<Tensor>> pulls = psClient.recvTensors(3, List.of(key("a:0"), key("b:0")));
    sendOnPs(ps.worker(), 3, "b:0", 2f);
    assertThat(pulls.get(1).get(20, TimeUnit.SECONDS).floatData()).containsExactly(2f);
    assertThat(pulls.get(0)).as("a is not sent yet").isNotDone();

    sendOnPs(ps.worker(), 3, "a:0", 1f);
    assertThat(pulls.get(0).get(20, TimeUnit.SECONDS).floatData()).containsExactly(1f);
    awaitLiveSteps(ps.worker(), 0);
  }

  @Test
  void aStepAbortedOnTheSenderFailsEveryPullOfTheCall() throws Exception {
    List<CompletableFuture<Tensor>> pulls = psClient.recvTensors(4, List.of(key("a:0"), key("b:0"), key("c:0")));
    sendOnPs(ps.worker(), 4, "b:0", 2f);
    pulls.get(1).get(20, TimeUnit.SECONDS);

    ps.worker().abortStep(4, StatusException.aborted("the test aborts step 4"));
    for (int i : new int[] {0, 2}) {
      assertThatThrownBy(() -> pulls.get(i).get(20, TimeUnit.SECONDS)).hasStackTraceContaining("the test aborts step 4");
    }
  }

  @Test
  void givingUpOnePullCancelsTheCallAndThePeerForgetsEveryPull() throws Exception {
    List<CompletableFuture<Tensor>> pulls = psClient.recvTensors(5, List.of(key("a:0"), key("b:0")));
    awaitLiveSteps(ps.worker(), 1);

    pulls.get(0).completeExceptionally(StatusException.aborted("step 5 aborted here"));
    awaitLiveSteps(ps.worker(), 0);
    assertThatThrownBy(() -> pulls.get(1).get(20, TimeUnit.SECONDS)).hasStackTraceContaining("cancel");
  }

  @Test
  void moreKeysThanTheCallerMayHaveWaitingAreRefusedAsOne() {
    int max = ps.worker().limits().maxPendingRecvsPerPeer();
    List<String> keys = java.util.stream.IntStream.rangeClosed(0, max).mapToObj(i -> key("t" + i + ":0")).toList();
    List<CompletableFuture<Tensor>> pulls = psClient.recvTensors(6, keys);
    assertThatThrownBy(() -> pulls.get(0).get(20, TimeUnit.SECONDS)).hasStackTraceContaining("max_pending_recvs_per_peer");
    assertThat(ps.worker().liveSteps()).isZero();
  }

  private static String key(String tensor) {
    return RendezvousKeys.of(PS, WORKER, tensor);
  }

  /** Runs on the ps, in step {@code step}, a graph that sends the scalar {@code value} to the worker as {@code tensor}. */
  private static void sendOnPs(Worker ps, long step, String tensor, float value) {
    Graph g = new Graph();
    Output x = Ops.create(g).withDevice(PS).constant(new float[] {value});
    g.opBuilder(Send.DEF, "send").addInput(x).setDevice(PS).setAttr("T", DType.FLOAT32)
        .setAttr("tensor_name", tensor).setAttr("send_device", PS).setAttr("recv_device", WORKER).build();
    String handle = ps.registerGraph(RegisterGraphRequest.newBuilder().setSessionHandle("s")
        .setGraphDef(GraphDefs.toProto(g)).build());
    ps.runGraph(handle, step, List.of(), false).join();
  }
}
