package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.ServerLimits;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Output;
import dev.psflow.graph.TensorProtos;
import dev.psflow.ops.Ops;
import dev.psflow.proto.AbortStepRequest;
import dev.psflow.proto.AttrValue;
import dev.psflow.proto.CreateSessionRequest;
import dev.psflow.proto.DataType;
import dev.psflow.proto.ExtendSessionRequest;
import dev.psflow.proto.GetStatusRequest;
import dev.psflow.proto.GraphDef;
import dev.psflow.proto.MasterServiceGrpc;
import dev.psflow.proto.NodeDef;
import dev.psflow.proto.RecvTensorRequest;
import dev.psflow.proto.RecvTensorResponse;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.proto.RunGraphRequest;
import dev.psflow.proto.RunStepRequest;
import dev.psflow.proto.TensorProto;
import dev.psflow.proto.TensorShapeProto;
import dev.psflow.proto.WorkerServiceGrpc;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * A stranger on the network sends a ps server everything it should not, over real gRPC on
 * loopback (and raw sockets below it). Each request gets a status whose code and message say what
 * was wrong; none takes the server down, none makes it answer UNKNOWN. Afterwards the cluster still
 * trains, and the JVM's live heap after a full GC (measured in this same JVM, which holds both
 * sides) is back within 10% of what it was before the attack; the figures are printed.
 *
 * <p>The attack is rehearsed once before the "before" figure is taken, so what the JVM keeps for
 * having run it at all (loaded classes, Netty's buffer pools and recyclers) is in the baseline and
 * only what the server keeps per attack would show.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
class HostileInputTest {
  /** Short enough for a test; production defaults are in {@link ServerLimits#DEFAULTS}. */
  private static final Duration ABANDONED_STEP = Duration.ofSeconds(2);
  private static final long MAX_TENSOR_BYTES = 64L << 20;
  /** Also the handshake timeout: a connection that says nothing is closed after it. */
  private static final Duration CONNECTION_IDLE = Duration.ofSeconds(3);
  private static final int MAX_CONNECTIONS_PER_PEER = 64;
  private static final int MAX_GRAPHS_PER_SESSION = 20;
  private static final int UNANSWERED_RECVS = 20_000;

  private Server ps;
  private Server worker;
  private HostilePeer peer;
  private TrainingClient client;
  private long heapBefore;

  @BeforeAll
  void startClusterAndTrainOnce() throws Exception {
    ClusterSpec cluster = FreePorts.localCluster(1, 1);
    ServerOptions options = ServerOptions.DEFAULTS.withLimits(ServerLimits.DEFAULTS
        .withMaxTensorBytes(MAX_TENSOR_BYTES).withAbandonedStep(ABANDONED_STEP).withConnectionIdle(CONNECTION_IDLE)
        .withMaxConnectionsPerPeer(MAX_CONNECTIONS_PER_PEER).withMaxGraphsPerSession(MAX_GRAPHS_PER_SESSION));
    ps = Server.create(cluster, "ps", 0, options);
    worker = Server.create(cluster, "worker", 0, options);
    client = new TrainingClient(worker.target());
    // The rehearsal (see the class comment).
    for (int i = 0; i < 3; i++) {
      client.trainStep();
    }
    peer = new HostilePeer(ps.port());
    randomBytesOnThePortCloseTheConnectionAndNothingElse();
    http11OnThePortIsRefused();
    garbageTruncatedAndDeeplyNestedRequestsAreMalformed();
    graphsThatCannotBeBuiltNameTheirProblem();
    constantsWhoseContentDisagreesWithTheirShape();
    hugeNegativeAndOverflowingShapes();
    sizesKnownOnlyWhenTheStepRunsAreCheckedBeforeAllocating();
    wrongFeedsAreNamed();
    unknownHandlesAndStepsAreNamed();
    registeredGraphsAreCappedPerSession();
    recvTensorsNoOneSends(peer, UNANSWERED_RECVS); // the same size: Netty's recyclers fill to its peak here
    manyIdleConnectionsAreCappedAndClosed();
    peer.close();
    settle();
    heapBefore = Heap.liveBytesAfterGc();
    peer = new HostilePeer(ps.port());
  }

  @AfterAll
  void stop() throws InterruptedException {
    if (peer != null) {
      peer.close();
    }
    if (client != null) {
      client.close();
    }
    if (worker != null) {
      worker.stop();
    }
    if (ps != null) {
      ps.stop();
    }
  }

  @Test
  @Order(1)
  void randomBytesOnThePortCloseTheConnectionAndNothingElse() throws IOException {
    byte[] noise = new byte[64 << 10];
    new Random(7).nextBytes(noise);
    peer.sendOnSocket(noise, 10_000); // returns when the server has closed the connection
    assertThat(peer.worker.getStatus(GetStatusRequest.getDefaultInstance()).getTask()).isEqualTo(ps.task());
  }

  @Test
  @Order(2)
  void http11OnThePortIsRefused() throws IOException {
    byte[] answer = peer.sendOnSocket("GET / HTTP/1.1\r\nHost: ps\r\nConnection: close\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII), 10_000);
    assertThat(answer == null ? "" : new String(answer, StandardCharsets.ISO_8859_1)).doesNotContain("200 OK");
    assertThat(peer.worker.getStatus(GetStatusRequest.getDefaultInstance()).getTask()).isEqualTo(ps.task());
  }

  @Test
  @Order(3)
  void garbageTruncatedAndDeeplyNestedRequestsAreMalformed() {
    byte[] garbage = new byte[4096];
    new Random(11).nextBytes(garbage);
    assertStatus(peer.callRaw(WorkerServiceGrpc.getRegisterGraphMethod(), garbage), Status.Code.INVALID_ARGUMENT,
        "malformed RegisterGraph request");
    assertStatus(peer.callRaw(MasterServiceGrpc.getCreateSessionMethod(), garbage), Status.Code.INVALID_ARGUMENT,
        "malformed CreateSession request");

    byte[] whole = register(GraphDefs.toProto(Graphs.fill(Graphs.constInts(2, 3)))).toByteArray();
    assertStatus(peer.callRaw(WorkerServiceGrpc.getRegisterGraphMethod(), Arrays.copyOf(whole, whole.length - 5)),
        Status.Code.INVALID_ARGUMENT, "malformed RegisterGraph request: While parsing a protocol message, the input ended "
            + "unexpectedly");

    assertStatus(peer.callRaw(WorkerServiceGrpc.getRegisterGraphMethod(), Graphs.nestedGraphDef(2, 100_000)),
        Status.Code.INVALID_ARGUMENT, "nested more than 100 levels deep");
    assertStatus(peer.callRaw(MasterServiceGrpc.getCreateSessionMethod(), Graphs.nestedGraphDef(1, 100_000)),
        Status.Code.INVALID_ARGUMENT, "nested more than 100 levels deep");
  }

  @Test
  @Order(4)
  void graphsThatCannotBeBuiltNameTheirProblem() {
    GraphDef unknownOp = GraphDef.newBuilder().addNode(NodeDef.newBuilder().setName("x").setOp("LaunchMissiles")).build();
    assertStatus(registerStatus(unknownOp), Status.Code.INVALID_ARGUMENT,
        "GraphDef node 'x' has unknown op type 'LaunchMissiles'");

    GraphDef cycle = GraphDef.newBuilder()
        .addNode(Graphs.identity("a", "b")).addNode(Graphs.identity("b", "a")).build();
    assertStatus(registerStatus(cycle), Status.Code.INVALID_ARGUMENT, "GraphDef has a cycle: node 'a' takes input 'b'");

    GraphDef missingInput = GraphDef.newBuilder().addNode(Graphs.identity("a", "nowhere")).build();
    assertStatus(registerStatus(missingInput), Status.Code.INVALID_ARGUMENT, "there is no op 'nowhere'");

    assertStatus(createSessionStatus(cycle), Status.Code.INVALID_ARGUMENT, "GraphDef has a cycle");
  }

  @Test
  @Order(5)
  void constantsWhoseContentDisagreesWithTheirShape() {
    TensorProto short4 = TensorProto.newBuilder().setDtype(DataType.DT_FLOAT).setTensorShape(Graphs.shape(4))
        .setTensorContent(ByteString.copyFrom(new byte[8])).build();
    assertStatus(registerStatus(Graphs.constGraph(short4, DataType.DT_FLOAT)), Status.Code.INVALID_ARGUMENT,
        "tensor_content of a float tensor of 4 elements must hold 16 bytes, got 8");

    TensorProto tooManyValues = TensorProto.newBuilder().setDtype(DataType.DT_FLOAT).setTensorShape(Graphs.shape(2))
        .addFloatVal(1).addFloatVal(2).addFloatVal(3).build();
    assertStatus(registerStatus(Graphs.constGraph(tooManyValues, DataType.DT_FLOAT)), Status.Code.INVALID_ARGUMENT,
        "a float tensor of 2 elements has 3 values");

    TensorProto floats = TensorProto.newBuilder().setDtype(DataType.DT_FLOAT).setTensorShape(Graphs.shape(1))
        .addFloatVal(1).build();
    assertStatus(registerStatus(Graphs.constGraph(floats, DataType.DT_INT32)), Status.Code.INVALID_ARGUMENT,
        "its dtype attr is int32 but its value is a float tensor");
  }

  @Test
  @Order(6)
  void hugeNegativeAndOverflowingShapes() {
    TensorProto splat = TensorProto.newBuilder().setDtype(DataType.DT_FLOAT)
        .setTensorShape(Graphs.shape(1_000_000, 1_000_000)).addFloatVal(1).build();
    assertStatus(registerStatus(Graphs.constGraph(splat, DataType.DT_FLOAT)), Status.Code.RESOURCE_EXHAUSTED,
        "GraphDef node 'c' (Const) attr 'value': tensor of shape [1000000,1000000] (float) would take 4000000000000 "
            + "bytes, more than max_tensor_bytes = " + MAX_TENSOR_BYTES);
    assertStatus(createSessionStatus(Graphs.constGraph(splat, DataType.DT_FLOAT)), Status.Code.RESOURCE_EXHAUSTED,
        "would take 4000000000000 bytes");

    TensorProto overflowing = splat.toBuilder().setTensorShape(Graphs.shape(1L << 40, 1L << 40)).build();
    assertStatus(registerStatus(Graphs.constGraph(overflowing, DataType.DT_FLOAT)), Status.Code.RESOURCE_EXHAUSTED,
        "more than 2^63 bytes");

    TensorProto negative = splat.toBuilder().setTensorShape(Graphs.shape(-5)).build();
    assertStatus(registerStatus(Graphs.constGraph(negative, DataType.DT_FLOAT)), Status.Code.INVALID_ARGUMENT,
        "GraphDef node 'c' attr 'value'");

    assertStatus(registerStatus(GraphDefs.toProto(Graphs.fill(Graphs.constInts(100_000, 100_000)))),
        Status.Code.RESOURCE_EXHAUSTED, "op 'fill' (Fill): output 0 of shape [100000,100000] (float) would take "
            + "40000000000 bytes, more than max_tensor_bytes = " + MAX_TENSOR_BYTES);
    Graph negativeFill = Graphs.fill(null);
    GraphDef withNegativeDims = GraphDefs.toProto(negativeFill).toBuilder().setNode(0, Graphs.constNode("dims",
        TensorProtos.toProto(Tensor.vector(-5, 3)))).build();
    // A negative dimension in a shape tensor means "unknown" while the graph is built; the kernel refuses it.
    String handle = peer.worker.registerGraph(register(withNegativeDims).toBuilder().addFetch("fill:0").build())
        .getGraphHandle();
    assertStatus(runGraphStatus(handle), Status.Code.INVALID_ARGUMENT, "dims must be non-negative, got [-5, 3]");
    assertStatus(registerStatus(GraphDefs.toProto(Graphs.range(2_000_000_000))), Status.Code.RESOURCE_EXHAUSTED,
        "op 'range' (Range): output 0 of shape [2000000000] (int32) would take 8000000000 bytes");
  }

  @Test
  @Order(7)
  void sizesKnownOnlyWhenTheStepRunsAreCheckedBeforeAllocating() {
    Graph g = Graphs.fill(null);
    String handle = peer.worker.registerGraph(register(GraphDefs.toProto(g)).toBuilder().addFeed("dims:0").build())
        .getGraphHandle();
    Status s = runGraphStatus(handle, TensorProtos.toProto(Tensor.vector(100_000, 100_000)));
    assertStatus(s, Status.Code.RESOURCE_EXHAUSTED, "output 0 of shape [100000,100000] (float) would take "
        + "40000000000 bytes, more than max_tensor_bytes = " + MAX_TENSOR_BYTES);
    assertThat(s.getDescription()).contains("[op 'fill' (Fill) on /job:ps/replica:0/task:0/device:CPU:0]");
    assertStatus(runGraphStatus(handle, TensorProtos.toProto(Tensor.vector(-3, 2))), Status.Code.INVALID_ARGUMENT,
        "dims must be non-negative, got [-3, 2]");

    // The same through a master: a session whose step would allocate 8 GB.
    String session = peer.master.createSession(CreateSessionRequest.newBuilder()
        .setGraphDef(GraphDefs.toProto(Graphs.range(2_000_000_000))).build()).getSessionHandle();
    assertStatus(status(() -> peer.master.runStep(RunStepRequest.newBuilder().setSessionHandle(session)
        .addFetch("range:0").build())), Status.Code.RESOURCE_EXHAUSTED, "op 'range' (Range): output 0 of shape "
        + "[2000000000] (int32) would take 8000000000 bytes");
  }

  @Test
  @Order(8)
  void wrongFeedsAreNamed() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output x = tf.withName("x").placeholder(DType.FLOAT32, Shape.of(2));
    tf.withName("y").mul(x, x);
    String handle = peer.worker.registerGraph(register(GraphDefs.toProto(g)).toBuilder().addFeed("x:0").addFetch("y:0")
        .build()).getGraphHandle();

    assertStatus(runGraphStatus(handle), Status.Code.INVALID_ARGUMENT, "expected 1 fed tensor (x:0), got 0");
    assertStatus(runGraphStatus(handle, TensorProtos.toProto(Tensor.vector(1f, 2f)),
        TensorProtos.toProto(Tensor.vector(1f, 2f))), Status.Code.INVALID_ARGUMENT, "expected 1 fed tensor (x:0), got 2");
    assertStatus(runGraphStatus(handle, TensorProtos.toProto(Tensor.vector(1, 2))), Status.Code.INVALID_ARGUMENT,
        "cannot feed a int32 value to tensor x:0, which has dtype float");
    assertStatus(runGraphStatus(handle, TensorProtos.toProto(Tensor.vector(1f, 2f, 3f))), Status.Code.INVALID_ARGUMENT,
        "cannot feed a value of shape [3] to tensor x:0");
    TensorProto shortContent = TensorProtos.toProto(Tensor.vector(1f, 2f)).toBuilder()
        .setTensorContent(ByteString.copyFrom(new byte[3])).build();
    assertStatus(runGraphStatus(handle, shortContent), Status.Code.INVALID_ARGUMENT,
        "tensor_content of a float tensor of 2 elements must hold 8 bytes, got 3");
    TensorProto hugeFeed = TensorProto.newBuilder().setDtype(DataType.DT_FLOAT).setTensorShape(Graphs.shape(1L << 30, 2))
        .addFloatVal(0).build();
    assertStatus(runGraphStatus(handle, hugeFeed), Status.Code.RESOURCE_EXHAUSTED, "RunGraph feed 0: tensor of shape "
        + "[1073741824,2] (float) would take 8589934592 bytes");
    peer.worker.deregisterGraph(dev.psflow.proto.DeregisterGraphRequest.newBuilder().setGraphHandle(handle).build());
  }

  @Test
  @Order(9)
  void unknownHandlesAndStepsAreNamed() {
    assertStatus(runGraphStatus("graph-424242"), Status.Code.ABORTED, "graph graph-424242 is not registered on "
        + "/job:ps/replica:0/task:0");
    assertStatus(status(() -> peer.master.runStep(RunStepRequest.newBuilder().setSessionHandle("session-nope").build())),
        Status.Code.ABORTED, "session session-nope does not exist on the master of /job:ps/replica:0/task:0");
    assertStatus(status(() -> peer.master.extendSession(ExtendSessionRequest.newBuilder().setSessionHandle("session-nope")
        .build())), Status.Code.ABORTED, "session session-nope does not exist");
    // Aborting a step nobody runs is harmless, and so is a huge message with it.
    peer.worker.abortStep(AbortStepRequest.newBuilder().setStepId(99).setCode(10).setMessage("x".repeat(1 << 20)).build());
    assertStatus(status(() -> peer.worker.recvTensor(RecvTensorRequest.newBuilder().setStepId(99)
        .setRendezvousKey("k").build()).hasNext()), Status.Code.ABORTED, "xxx...");
  }

  @Test
  @Order(10)
  void registeredGraphsAreCappedPerSession() {
    GraphDef tiny = GraphDefs.toProto(Graphs.fill(Graphs.constInts(2, 2)));
    RegisterGraphRequest hoard = register(tiny).toBuilder().setSessionHandle("hoarder").build();
    List<String> handles = new java.util.ArrayList<>();
    for (int i = 0; i < MAX_GRAPHS_PER_SESSION; i++) {
      handles.add(peer.worker.registerGraph(hoard).getGraphHandle());
    }
    assertStatus(status(() -> peer.worker.registerGraph(hoard)), Status.Code.RESOURCE_EXHAUSTED,
        "session 'hoarder' already has " + MAX_GRAPHS_PER_SESSION + " graphs registered on /job:ps/replica:0/task:0 "
            + "(max_graphs_per_session = " + MAX_GRAPHS_PER_SESSION + ")");
    for (String h : handles) {
      peer.worker.deregisterGraph(dev.psflow.proto.DeregisterGraphRequest.newBuilder().setGraphHandle(h).build());
    }
    String again = peer.worker.registerGraph(hoard).getGraphHandle(); // a deregistered graph gives its slot back
    peer.worker.deregisterGraph(dev.psflow.proto.DeregisterGraphRequest.newBuilder().setGraphHandle(again).build());
  }

  /**
   * Four times max_connections_per_peer connections from the stranger that never say a word: those
   * over the cap are closed as soon as they are accepted, the others once the handshake timeout
   * (here the idle timeout, 3 s) has passed. Meanwhile the cluster trains, and afterwards the
   * stranger may connect again.
   */
  @Test
  @Order(11)
  void manyIdleConnectionsAreCappedAndClosed() throws Exception {
    int opened = 4 * MAX_CONNECTIONS_PER_PEER;
    List<java.net.Socket> sockets = new java.util.ArrayList<>();
    long start = System.nanoTime();
    try (java.util.concurrent.ExecutorService readers = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      List<java.util.concurrent.Future<Long>> closedAfterMillis = new java.util.ArrayList<>();
      for (int i = 0; i < opened; i++) {
        java.net.Socket s = peer.socket();
        sockets.add(s);
        closedAfterMillis.add(readers.submit(() -> millisUntilClosed(s, start)));
      }
      client.trainStep(); // a well-behaved peer is served while the stranger holds its connections
      long refusedAtOnce = 0;
      long slowest = 0;
      for (java.util.concurrent.Future<Long> f : closedAfterMillis) {
        long ms = f.get(30, TimeUnit.SECONDS);
        refusedAtOnce += ms < CONNECTION_IDLE.toMillis() / 2 ? 1 : 0;
        slowest = Math.max(slowest, ms);
      }
      // The peer's gRPC channel may hold one of its slots.
      assertThat(refusedAtOnce).isGreaterThanOrEqualTo(opened - MAX_CONNECTIONS_PER_PEER);
      assertThat(slowest).as("ms until the last idle connection was closed")
          .isBetween(CONNECTION_IDLE.toMillis() / 2, CONNECTION_IDLE.toMillis() + 10_000);
    } finally {
      for (java.net.Socket s : sockets) {
        s.close();
      }
    }
    assertThat(peer.worker.getStatus(GetStatusRequest.getDefaultInstance()).getTask()).isEqualTo(ps.task());
  }

  /** Reads {@code s} until the server closes it; milliseconds from {@code start} until then. */
  private static long millisUntilClosed(java.net.Socket s, long start) throws IOException {
    s.setSoTimeout(30_000);
    try {
      while (s.getInputStream().read() >= 0) {
        // whatever the server says before closing (a GOAWAY) is read and dropped
      }
    } catch (java.net.SocketException e) {
      // reset: closed too
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  /**
   * 20,000 RecvTensor calls for tensors no step will send: the first 10,000
   * (max_pending_recvs_per_peer) wait and are failed ABORTED by the sweep once the bound has passed,
   * the others are refused at once (or, once the sweep has freed slots, wait in their turn). The
   * cluster trains meanwhile.
   */
  @Test
  @Order(12)
  void thousandsOfUnansweredRecvTensorCalls() throws Exception {
    int calls = UNANSWERED_RECVS;
    Map<String, AtomicInteger> outcomes = recvTensorsNoOneSends(peer, calls);
    // How many are refused depends on how fast they come: the sweep frees slots after the bound.
    // On a slow machine every call may find a slot freed by the sweep; none then hits the cap.
    assertThat(outcomes.keySet()).isSubsetOf("RESOURCE_EXHAUSTED per-peer cap", "ABORTED abandoned");
    int refused = outcomes.getOrDefault("RESOURCE_EXHAUSTED per-peer cap", new AtomicInteger()).get();
    int aborted = outcomes.getOrDefault("ABORTED abandoned", new AtomicInteger()).get();
    assertThat(aborted).isGreaterThanOrEqualTo(10_000);
    assertThat(refused + aborted).isEqualTo(calls);
    awaitNoSteps(ps);
  }

  /**
   * Sends {@code calls} RecvTensor calls for tensors no step sends, trains a step meanwhile (a
   * well-behaved peer, 127.0.0.1, is served while the stranger's calls wait), and returns how the
   * calls ended, by kind, once every one has.
   */
  private Map<String, AtomicInteger> recvTensorsNoOneSends(HostilePeer from, int calls) throws InterruptedException {
    Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    CountDownLatch done = new CountDownLatch(calls);
    Random random = new Random(3);
    for (int i = 0; i < calls; i++) {
      RecvTensorRequest r = RecvTensorRequest.newBuilder().setStepId(random.nextLong())
          .setRendezvousKey("/job:ps/replica:0/task:0/device:CPU:0;" + i + ";nothing:0").build();
      from.workerAsync.recvTensor(r, new StreamObserver<>() {
        @Override
        public void onNext(RecvTensorResponse v) {
          outcomes.computeIfAbsent("answered", k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void onError(Throwable t) {
          Status s = Status.fromThrowable(t);
          String d = String.valueOf(s.getDescription());
          String kind = s.getCode() + (d.contains("max_pending_recvs_per_peer") ? " per-peer cap"
              : d.contains("was abandoned: RecvTensor calls waited on /job:ps/replica:0/task:0 for 2 s, but no RunGraph "
                  + "of the step came") ? " abandoned" : " " + d);
          outcomes.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
          done.countDown();
        }

        @Override
        public void onCompleted() {
          done.countDown();
        }
      });
    }
    client.trainStep();
    assertThat(done.await(90, TimeUnit.SECONDS)).as("every call answered: " + outcomes).isTrue();
    return outcomes;
  }

  @Test
  @Order(13)
  void afterwardsTheClusterStillTrainsAndTheHeapIsBack() throws Exception {
    float before = client.loss();
    for (int i = 0; i < 5; i++) {
      client.trainStep();
    }
    assertThat(client.loss()).isLessThan(before);
    settle();
    long connected = Heap.liveBytesAfterGc();
    peer.close(); // the stranger goes away (or its connection idles out): its connection's tables go too
    long after = Heap.liveBytesAfterGc();
    System.out.printf("hostile suite: live heap before the attack %.2f MB; after it, stranger still connected "
        + "%.2f MB (%+.1f%%), stranger gone %.2f MB (%+.1f%%)%n", heapBefore / 1e6, connected / 1e6,
        100.0 * (connected - heapBefore) / heapBefore, after / 1e6, 100.0 * (after - heapBefore) / heapBefore);
    assertThat((double) connected).as("live heap after the attack, stranger still connected, bytes (before: "
        + heapBefore + ")").isLessThanOrEqualTo(heapBefore * 1.10);
    assertThat((double) after).as("live heap after the attack, bytes (before: " + heapBefore + ")")
        .isLessThanOrEqualTo(heapBefore * 1.10);
  }

  /** Waits until the ps holds no step state, and the abort records of swept steps (kept one bound) are gone. */
  private void settle() throws InterruptedException {
    awaitNoSteps(ps);
    Thread.sleep(ABANDONED_STEP.toMillis() * 3 / 2);
  }

  private static void assertStatus(Status s, Status.Code code, String fragment) {
    assertThat(s.getCode()).as(String.valueOf(s)).isEqualTo(code);
    assertThat(s.getDescription()).contains(fragment);
  }

  private static Status status(Supplier<?> call) {
    try {
      call.get();
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  private Status registerStatus(GraphDef def) {
    return status(() -> peer.worker.registerGraph(register(def)));
  }

  private Status createSessionStatus(GraphDef def) {
    return status(() -> peer.master.createSession(CreateSessionRequest.newBuilder().setGraphDef(def).build()));
  }

  private Status runGraphStatus(String handle, TensorProto... feeds) {
    return status(() -> peer.worker.runGraph(RunGraphRequest.newBuilder().setGraphHandle(handle)
        .setStepId(new Random().nextLong()).addAllFeed(List.of(feeds)).build()));
  }

  private static RegisterGraphRequest register(GraphDef def) {
    return RegisterGraphRequest.newBuilder().setSessionHandle("stranger").setGraphDef(def).build();
  }

  private static void awaitNoSteps(Server s) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (s.worker().liveSteps() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(s.worker().liveSteps()).as("steps with state left on " + s.task()).isZero();
  }

  /** Graphs and GraphDefs for the attacks. */
  static final class Graphs {
    static Graph fill(Tensor dims) {
      Graph g = new Graph();
      Ops tf = Ops.create(g);
      Output d = dims == null ? tf.withName("dims").placeholder(DType.INT32, Shape.of(2)) : tf.withName("dims").constant(dims);
      tf.withName("fill").fill(d, tf.constant(1f));
      return g;
    }

    static Tensor constInts(int... v) {
      return Tensor.vector(v);
    }

    static Graph range(int limit) {
      Graph g = new Graph();
      Ops tf = Ops.create(g);
      tf.withName("range").range(tf.constant(0), tf.constant(limit), tf.constant(1));
      return g;
    }

    static NodeDef identity(String name, String input) {
      return NodeDef.newBuilder().setName(name).setOp("Identity").addInput(input)
          .putAttr("T", AttrValue.newBuilder().setType(DataType.DT_FLOAT).build()).build();
    }

    static GraphDef constGraph(TensorProto value, DataType dtype) {
      return GraphDef.newBuilder().addNode(NodeDef.newBuilder().setName("c").setOp("Const")
          .putAttr("dtype", AttrValue.newBuilder().setType(dtype).build())
          .putAttr("value", AttrValue.newBuilder().setTensor(value).build())).build();
    }

    static NodeDef constNode(String name, TensorProto value) {
      return NodeDef.newBuilder().setName(name).setOp("Const")
          .putAttr("dtype", AttrValue.newBuilder().setType(value.getDtype()).build())
          .putAttr("value", AttrValue.newBuilder().setTensor(value).build()).build();
    }

    static TensorShapeProto shape(long... dims) {
      TensorShapeProto.Builder b = TensorShapeProto.newBuilder();
      for (long d : dims) {
        b.addDim(TensorShapeProto.Dim.newBuilder().setSize(d));
      }
      return b.build();
    }

    /**
     * A request whose GraphDef (field {@code field} of the request) holds groups of an unknown field
     * nested {@code depth} deep.
     */
    static byte[] nestedGraphDef(int field, int depth) {
      try {
        ByteArrayOutputStream inner = new ByteArrayOutputStream();
        CodedOutputStream c = CodedOutputStream.newInstance(inner);
        for (int i = 0; i < depth; i++) {
          c.writeTag(99, 3); // start group
        }
        for (int i = 0; i < depth; i++) {
          c.writeTag(99, 4); // end group
        }
        c.flush();
        ByteArrayOutputStream outer = new ByteArrayOutputStream();
        CodedOutputStream o = CodedOutputStream.newInstance(outer);
        o.writeBytes(field, ByteString.copyFrom(inner.toByteArray()));
        o.flush();
        return outer.toByteArray();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
