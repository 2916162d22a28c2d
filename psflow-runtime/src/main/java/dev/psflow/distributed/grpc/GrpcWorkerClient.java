package dev.psflow.distributed.grpc;

import dev.psflow.distributed.WorkerClient;
import dev.psflow.distributed.WorkerClient.AccumulatorInfo;
import dev.psflow.distributed.WorkerClient.ReplicaSeen;
import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.graph.TensorProtos;
import dev.psflow.proto.AbortStepRequest;
import dev.psflow.proto.DeregisterGraphRequest;
import dev.psflow.proto.GetStatusRequest;
import dev.psflow.proto.GetStatusResponse;
import dev.psflow.proto.RecvTensorRequest;
import dev.psflow.proto.RecvTensorsRequest;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.proto.ResetRequest;
import dev.psflow.proto.RunGraphRequest;
import dev.psflow.proto.TensorProto;
import dev.psflow.proto.WorkerServiceGrpc;
import dev.psflow.tensor.Tensor;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import java.util.function.BiConsumer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

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
  private final Supplier<TensorSizeLimit> receiveLimit;

  /** {@code receiveLimit}: the largest tensor this task takes from a peer (its {@code max_tensor_bytes}), read per call. */
  GrpcWorkerClient(String task, String address, ManagedChannel channel, Supplier<TensorSizeLimit> receiveLimit) {
    this.task = task;
    this.address = address;
    this.stub = WorkerServiceGrpc.newStub(channel);
    this.receiveLimit = receiveLimit;
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
    try {
      WholeMessages.check("the feeds of RunGraph for step " + stepId + " on " + task, feeds);
    } catch (StatusException e) {
      return CompletableFuture.failedFuture(e);
    }
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

  /**
   * Pulls a tensor as the peer streams it ({@link TensorWire}): one message at a time
   * ({@code request(1)} once each is read into the tensor), so at most a chunk or two of it sit in
   * gRPC's buffers; no message may be over a chunk. Completing the result otherwise (cancelled, the
   * step aborted here) cancels the call, and the peer stops sending.
   */
  @Override
  public CompletableFuture<Tensor> recvTensor(long stepId, String key) {
    RecvTensorRequest req = RecvTensorRequest.newBuilder().setStepId(stepId).setRendezvousKey(key).build();
    CompletableFuture<Tensor> out = new CompletableFuture<>();
    TensorSizeLimit limit = receiveLimit.get();
    CallOptions options = stub.getCallOptions().withMaxInboundMessageSize(maxRecvMessageBytes(limit));
    ClientCalls.asyncServerStreamingCall(stub.getChannel().newCall(TensorWire.recvTensor(limit), options),
        req, new ClientResponseObserver<RecvTensorRequest, TensorChunk>() {
          private ClientCallStreamObserver<RecvTensorRequest> call;

          @Override
          public void beforeStart(ClientCallStreamObserver<RecvTensorRequest> c) {
            call = c;
            c.disableAutoRequestWithInitial(1);
            out.whenComplete((t, e) -> {
              if (e != null) {
                c.cancel("the pull of " + key + " in step " + stepId + " was cancelled here", e);
              }
            });
          }

          @Override
          public void onNext(TensorChunk c) {
            if (c.isLast()) {
              out.complete(c.tensor());
            }
            call.request(1); // after the last, so that the end (or a peer's stray message, an error) comes promptly
          }

          @Override
          public void onError(Throwable t) {
            out.completeExceptionally(StatusMapping.fromGrpc(t, task + " at " + address));
          }

          @Override
          public void onCompleted() {
            // Usually the last chunk completed it already; building the exception anyway cost a stack walk per pull.
            if (!out.isDone()) {
              out.completeExceptionally(new StatusException(Code.INTERNAL, task + " at " + address
                + " ended its answer to RecvTensor of " + key + " before the tensor's last bytes"));
            }
          }
        });
    return out;
  }

  /**
   * Pulls several tensors in one RecvTensors call ({@link TensorWire}): each result completes when
   * its key's last chunk is read, in whatever order the peer's step sends them. Completing any result
   * otherwise (the step aborted here) cancels the call and so the others (the step is over); the
   * call failing fails every result not yet complete.
   */
  @Override
  public List<CompletableFuture<Tensor>> recvTensors(long stepId, List<String> keys) {
    if (keys.size() == 1) {
      return List.of(recvTensor(stepId, keys.get(0)));
    }
    RecvTensorsRequest req = RecvTensorsRequest.newBuilder().setStepId(stepId).addAllRendezvousKey(keys).build();
    List<CompletableFuture<Tensor>> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      out.add(new CompletableFuture<>());
    }
    TensorSizeLimit limit = receiveLimit.get();
    CallOptions options = stub.getCallOptions().withMaxInboundMessageSize(maxRecvMessageBytes(limit));
    ClientCalls.asyncServerStreamingCall(stub.getChannel().newCall(TensorWire.recvTensors(limit, keys.size()), options),
        req, new ClientResponseObserver<RecvTensorsRequest, KeyedChunk>() {
          private ClientCallStreamObserver<RecvTensorsRequest> call;

          @Override
          public void beforeStart(ClientCallStreamObserver<RecvTensorsRequest> c) {
            call = c;
            c.disableAutoRequestWithInitial(1);
            for (int i = 0; i < out.size(); i++) {
              String key = keys.get(i);
              out.get(i).whenComplete((t, e) -> {
                if (e != null) {
                  c.cancel("the pull of " + key + " in step " + stepId + " was cancelled here", e);
                }
              });
            }
          }

          @Override
          public void onNext(KeyedChunk c) {
            if (c.chunk().isLast()) {
              out.get(c.key()).complete(c.chunk().tensor());
            }
            call.request(1);
          }

          @Override
          public void onError(Throwable t) {
            StatusException why = StatusMapping.fromGrpc(t, task + " at " + address);
            out.forEach(f -> f.completeExceptionally(why));
          }

          @Override
          public void onCompleted() {
            for (int i = 0; i < out.size(); i++) {
              if (!out.get(i).isDone()) {
                out.get(i).completeExceptionally(new StatusException(Code.INTERNAL, task + " at " + address
                    + " ended its answer to RecvTensors before the tensor of " + keys.get(i)));
              }
            }
          }
        });
    return out;
  }

  /**
   * The largest RecvTensor message taken: a chunk for numbers; a tensor of strings (never chunked)
   * may take the whole limit, up to protobuf's 2 GiB.
   */
  static int maxRecvMessageBytes(TensorSizeLimit limit) {
    long room = TensorSizeLimit.plus(limit.maxBytes(), 1 << 20);
    return (int) Math.max(TensorChunk.MAX_BYTES + (64 << 10), Math.min(GrpcTransport.MAX_MESSAGE_BYTES, room));
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
