package dev.psflow.distributed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.ops.Ops;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.Tensor;
import dev.psflow.exec.FileAccessPolicy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a worker keeps for a peer is bounded: abandoned steps go within 1.25 × the bound, graphs are capped. */
class WorkerLimitsTest {
  private static final Duration BOUND = Duration.ofMillis(400);
  private final Worker worker = new Worker("/job:ps/replica:0/task:0", task -> null, FileAccessPolicy.UNRESTRICTED, ServerLimits.DEFAULTS
      .withAbandonedStep(BOUND).withMaxGraphsPerSession(2));

  @AfterEach
  void close() {
    worker.close();
  }

  @Test
  void aRecvTensorForAStepThatNeverComesFailsAbortedWithinTheBound() throws Exception {
    long start = System.nanoTime();
    CompletableFuture<Tensor> pull = worker.recvTensor(7, "/job:ps/replica:0/task:0/device:CPU:0;1;x:0");
    assertThat(worker.liveSteps()).isOne();

    assertThatThrownBy(() -> pull.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
        .hasMessage("step 7 was abandoned: RecvTensor calls waited on /job:ps/replica:0/task:0 for 400 ms, but no "
            + "RunGraph of the step came")
        .satisfies(e -> assertThat(((StatusException) e).code()).isEqualTo(Code.ABORTED));
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(waitedMillis).isGreaterThanOrEqualTo(BOUND.toMillis());
    assertThat(worker.liveSteps()).isZero();
    // A late call of the step fails at once with the same error, until its record expires too.
    assertThat(worker.recvTensor(7, "other")).isCompletedExceptionally();
  }

  @Test
  void aCancelledRecvTensorIsForgottenAtOnce() {
    CompletableFuture<Tensor> pull = worker.recvTensor(8, "k");
    pull.cancel(false);
    assertThat(worker.liveSteps()).isZero();
  }

  @Test
  void graphsAreCappedPerSessionAndDeregisteringFreesTheSlot() {
    Graph g = new Graph();
    Ops.create(g).constant(1f);
    RegisterGraphRequest r = RegisterGraphRequest.newBuilder().setSessionHandle("s").setGraphDef(GraphDefs.toProto(g))
        .build();
    String first = worker.registerGraph(r);
    worker.registerGraph(r);

    assertThatThrownBy(() -> worker.registerGraph(r)).isInstanceOf(StatusException.class)
        .hasMessage("session 's' already has 2 graphs registered on /job:ps/replica:0/task:0 (max_graphs_per_session "
            + "= 2); deregister graphs it no longer runs")
        .satisfies(e -> assertThat(((StatusException) e).code()).isEqualTo(Code.RESOURCE_EXHAUSTED));
    worker.registerGraph(r.toBuilder().setSessionHandle("another").build()); // other sessions have their own quota
    worker.deregisterGraph(first);
    worker.registerGraph(r);
    assertThat(worker.registeredGraphs()).isEqualTo(3);
  }
}
