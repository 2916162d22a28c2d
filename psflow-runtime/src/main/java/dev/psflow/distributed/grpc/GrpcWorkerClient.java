package dev.psflow.distributed.grpc;

import dev.psflow.distributed.WorkerClient;
import dev.psflow.distributed.WorkerClient.AccumulatorInfo;
import dev.psflow.distributed.WorkerClient.ReplicaSeen;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.TensorProtos;
import dev.psflow.proto.AbortStepRequest;
import dev.psflow.proto.DeregisterGraphRequest;
import dev.psflow.proto.GetStatusRequest;
import dev.psflow.proto.GetStatusResponse;
import dev.psflow.proto.RecvTensorRequest;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.proto.ResetRequest;
import dev.psflow.proto.RunGraphRequest;
import dev.psflow.proto.TensorProto;
import dev.psflow.proto.WorkerServiceGrpc;
import dev.psflow.tensor.Tensor;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.function.BiConsumer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A {@link WorkerClient} over gRPC: one channel per peer task, shared by all calls. Control calls
 * carry a deadline; RunGraph and RecvTensor wait as long as the step does (the step's own deadline
 * and cancellation bound them). Failures name the task and keep their code.
 */
final class GrpcWorkerClient implements WorkerClient {
  private static final long CONTROL_DEADLINE_MILLIS = 60_000;

  private final String task;
  private final String address;
  private final WorkerServiceGrpc.WorkerServiceStub stub;

  GrpcWorkerClient(String task, String address, ManagedChannel channel) {
    this.task = task;
    this.address = address;
    this.stub = WorkerServiceGrpc.newStub(channel);
  }

  @Override
  public String task() {
    return task;
  }

  @Override
  public CompletableFuture<WorkerStatus> getStatus(long timeoutMillis) {
    return call(stub.withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS)::getStatus, GetStatusRequest.getDefaultInstance(),
        GrpcWorkerClient::status);
  }

  private static WorkerStatus status(GetStatusResponse r) {
    Map<String, Integer> queues = new TreeMap<>();
    r.getQueueList().forEach(q -> queues.put(q.getName(), q.getSize()));
    List<AccumulatorInfo> accumulators = new ArrayList<>();
    r.getAccumulatorList().forEach(a -> accumulators.add(
        new AccumulatorInfo(a.getName(), a.getNumAccumulated(), a.getGlobalStep(), a.getDropped())));
    List<ReplicaSeen> replicas = new ArrayList<>();
    r.getReplicaList().forEach(p -> replicas.add(new ReplicaSeen(p.getTask(), p.getLastStep(), p.getLastHeardUnixMillis())));
    return new WorkerStatus(r.getTask(), r.getDeviceList(), r.getIncarnation(), r.getGlobalStep(), r.getLiveSteps(),
        queues, accumulators, replicas, r.getNowUnixMillis());
  }

  @Override
  public CompletableFuture<String> registerGraph(RegisterGraphRequest request) {
    return call(control()::registerGraph, request, r -> r.getGraphHandle());
  }

  @Override
  public CompletableFuture<Void> deregisterGraph(String graphHandle) {
    return call(control()::deregisterGraph, DeregisterGraphRequest.newBuilder().setGraphHandle(graphHandle).build(), r -> null);
  }

  @Override
  public CompletableFuture<GraphRun> runGraph(String graphHandle, long stepId, List<Tensor> feeds, long timeoutMillis,
      boolean trace) {
    RunGraphRequest.Builder b = RunGraphRequest.newBuilder().setGraphHandle(graphHandle).setStepId(stepId)
        .setTimeoutMs(timeoutMillis).setTrace(trace);
    feeds.forEach(t -> b.addFeed(TensorProtos.toProto(t)));
    var s = timeoutMillis > 0 ? stub.withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS) : stub;
    return call(s::runGraph, b.build(), r -> {
      List<Tensor> out = new ArrayList<>(r.getFetchCount());
      for (TensorProto p : r.getFetchList()) {
        out.add(TensorProtos.fromProto(p));
      }
      return new GraphRun(out, r.hasStepStats() ? StepStatsProtos.fromProto(r.getStepStats()) : null);
    });
  }

  @Override
  public CompletableFuture<Tensor> recvTensor(long stepId, String key) {
    RecvTensorRequest req = RecvTensorRequest.newBuilder().setStepId(stepId).setRendezvousKey(key).build();
    BiConsumer<RecvTensorRequest, StreamObserver<Tensor>> recv = (q, observer) -> ClientCalls.asyncUnaryCall(
        stub.getChannel().newCall(TensorWire.RECV_TENSOR, stub.getCallOptions()), q, observer);
    return call(recv, req, t -> t);
  }

  @Override
  public CompletableFuture<Void> abortStep(long stepId, StatusException why) {
    return call(control()::abortStep, AbortStepRequest.newBuilder().setStepId(stepId).setCode(why.code().value())
        .setMessage(String.valueOf(why.getMessage())).build(), r -> null);
  }

  @Override
  public CompletableFuture<Void> reset(List<String> containers) {
    return call(control()::reset, ResetRequest.newBuilder().addAllContainer(containers).build(), r -> null);
  }

  private WorkerServiceGrpc.WorkerServiceStub control() {
    return stub.withDeadlineAfter(CONTROL_DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Starts {@code method(request)} and completes the result on the response; cancelling the result cancels the call. */
  private <Q, R, T> CompletableFuture<T> call(BiConsumer<Q, io.grpc.stub.StreamObserver<R>> method, Q request,
      Function<R, T> convert) {
    CompletableFuture<T> out = new CompletableFuture<>();
    method.accept(request, new ClientResponseObserver<Q, R>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<Q> call) {
        out.whenComplete((r, e) -> {
          if (out.isCancelled()) {
            call.cancel("cancelled by the caller", null);
          }
        });
      }

      @Override
      public void onNext(R r) {
        try {
          out.complete(convert.apply(r));
        } catch (RuntimeException e) {
          out.completeExceptionally(StatusException.from(e));
        }
      }

      @Override
      public void onError(Throwable t) {
        out.completeExceptionally(StatusMapping.fromGrpc(t, task + " at " + address));
      }

      @Override
      public void onCompleted() {}
    });
    return out;
  }
}
