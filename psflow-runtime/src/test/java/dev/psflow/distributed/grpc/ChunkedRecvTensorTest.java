package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.Worker;
import dev.psflow.exec.Session;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.sendrecv.Recv;
import dev.psflow.ops.sendrecv.RendezvousKeys;
import dev.psflow.ops.sendrecv.Send;
import dev.psflow.proto.RecvTensorRequest;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A tensor larger than a chunk crosses between tasks as a stream of chunks over real gRPC: every
 * byte arrives, no message is over a chunk, and a step aborted on either side stops the transfer.
 */
class ChunkedRecvTensorTest {
  private static final String PS = "/job:ps/replica:0/task:0/device:CPU:0";
  private static final String WORKER = "/job:worker/replica:0/task:0/device:CPU:0";

  private final List<Server> servers = new ArrayList<>();
  private final GrpcTransport wire = new GrpcTransport();

  @BeforeEach
  void startCluster() {
    ClusterSpec cluster = FreePorts.localCluster(1, 1);
    servers.add(Server.create(cluster, "ps", 0));
    servers.add(Server.create(cluster, "worker", 0));
  }

  @AfterEach
  void stopCluster() {
    wire.close();
    servers.forEach(Server::stop);
  }

  /**
   * 300 MB of random floats made on the ps cross to the worker; both sides sum the same 7,500 rows
   * of 10,000 with the same kernel, so every element must have arrived, in its place (a lost,
   * changed or misplaced chunk changes rows' sums). They went in about 75 messages of 4 MiB.
   */
  @Test
  void threeHundredMegabytesCrossInChunksWithEveryByteIntact() {
    int n = 75_000_000;
    Graph g = new Graph();
    Ops ps = Ops.create(g).withDevice("/job:ps/task:0");
    Ops w = Ops.create(g).withDevice("/job:worker/task:0");
    Output x = ps.randomUniform(Shape.of(n), DType.FLOAT32, -1f, 1f, 42);
    Output sentRows = ps.reduceSum(ps.reshape(x, 7_500, 10_000), 1);
    Output receivedRows = w.reduceSum(w.reshape(x, 7_500, 10_000), 1);

    WireStats.Snapshot before = WireStats.snapshot();
    try (Session s = Session.open(g, servers.get(1).target())) {
      List<Tensor> out = s.runner().fetch(sentRows).fetch(receivedRows).run();
      assertThat(out.get(1).floatData()).isEqualTo(out.get(0).floatData());
      assertThat(out.get(0).floatData()).as("rows of uniform floats are no zeros").doesNotContain(0f);
    }
    WireStats.Snapshot moved = WireStats.snapshot().minus(before);
    long chunks = (long) n * 4 / TensorChunk.MAX_BYTES;
    assertThat(moved.messages()).as("the tensor went in chunks").isGreaterThanOrEqualTo(chunks);
    assertThat(moved.total()).isGreaterThanOrEqualTo(2L * n * 4); // counted as sent by the ps and received by the worker
  }

  /**
   * A caller that has read one chunk and waits: the ps sends no more than flow control lets it.
   * Aborting the step on the ps ends the answer there with the abort's status, long before the
   * tensor's last chunk.
   */
  @Test
  void aStepAbortedOnTheSenderEndsItsTransferMidway() throws Exception {
    int n = 16 << 20; // 64 MB: 16 chunks
    Worker ps = servers.get(0).worker();
    sendOnPs(ps, 5, n);
    ManagedChannel channel = wire.channel("127.0.0.1:" + servers.get(0).port(), "/job:ps/task:0");
    ClientCall<RecvTensorRequest, TensorChunk> call = channel.newCall(TensorWire.recvTensor(TensorSizeLimit.NONE),
        CallOptions.DEFAULT);
    AtomicInteger chunks = new AtomicInteger();
    CountDownLatch first = new CountDownLatch(1);
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(TensorChunk c) {
        chunks.incrementAndGet();
        first.countDown();
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage(RecvTensorRequest.newBuilder().setStepId(5).setRendezvousKey(RendezvousKeys.of(PS, WORKER, "x:0")).build());
    call.halfClose();
    assertThat(first.await(30, TimeUnit.SECONDS)).isTrue();

    ps.abortStep(5, StatusException.aborted("the test aborts step 5"));
    call.request(Integer.MAX_VALUE); // read what was sent before the abort, then the end
    Status end = closed.get(30, TimeUnit.SECONDS);
    assertThat(end.getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(end.getDescription()).isEqualTo("the test aborts step 5");
    assertThat(chunks.get()).isLessThan(n * 4 / TensorChunk.MAX_BYTES);
  }

  /**
   * The worker pulls a tensor the ps has not sent yet; aborting the step on the worker cancels the
   * pull's call, and the ps forgets the pull at once (not after the abandoned-step sweep).
   */
  @Test
  void aStepAbortedOnTheReceiverCancelsItsPull() throws Exception {
    Worker ps = servers.get(0).worker();
    Worker worker = servers.get(1).worker();
    Graph g = new Graph();
    Output x = g.opBuilder(Recv.DEF, "recv_x").setDevice(WORKER).setAttr("tensor_type", DType.FLOAT32)
        .setAttr("_shape", Shape.of(4)).setAttr("tensor_name", "x:0").setAttr("send_device", PS)
        .setAttr("recv_device", WORKER).build().output(0);
    Ops.create(g).withDevice(WORKER).reduceSum(x);
    String handle = worker.registerGraph(RegisterGraphRequest.newBuilder().setSessionHandle("s")
        .setGraphDef(GraphDefs.toProto(g)).build());
    var run = worker.runGraph(handle, 6, List.of(), false);
    awaitLiveSteps(ps, 1); // the pull waits on the ps

    worker.abortStep(6, StatusException.aborted("the test aborts step 6"));
    awaitLiveSteps(ps, 0);
    assertThatThrownBy(() -> run.get(20, TimeUnit.SECONDS)).hasStackTraceContaining("the test aborts step 6");
  }

  /** Registers and runs on the ps a graph that sends {@code n} random floats to the worker in step {@code step}. */
  private static void sendOnPs(Worker ps, long step, int n) {
    Graph g = new Graph();
    Output x = Ops.create(g).withDevice(PS).randomUniform(Shape.of(n), DType.FLOAT32, -1f, 1f, 7);
    g.opBuilder(Send.DEF, "send_x").addInput(x).setDevice(PS).setAttr("T", DType.FLOAT32)
        .setAttr("tensor_name", "x:0").setAttr("send_device", PS).setAttr("recv_device", WORKER).build();
    String handle = ps.registerGraph(RegisterGraphRequest.newBuilder().setSessionHandle("s")
        .setGraphDef(GraphDefs.toProto(g)).build());
    ps.runGraph(handle, step, List.of(), false).join();
  }

  /** Waits up to 20 s for {@code w} to hold {@code n} live steps (RecvTensorsTest uses it too). */
  static void awaitLiveSteps(Worker w, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (w.liveSteps() != n && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(w.liveSteps()).isEqualTo(n);
  }
}
