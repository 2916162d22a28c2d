package dev.psflow.distributed.grpc;

import dev.psflow.distributed.Worker;
import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.TensorProtos;
import dev.psflow.proto.AbortStepRequest;
import dev.psflow.proto.AbortStepResponse;
import dev.psflow.proto.AccumulatorStatus;
import dev.psflow.proto.DeregisterGraphRequest;
import dev.psflow.proto.DeregisterGraphResponse;
import dev.psflow.proto.GetStatusRequest;
import dev.psflow.proto.GetStatusResponse;
import dev.psflow.proto.QueueStatus;
import dev.psflow.proto.RecvTensorRequest;
import dev.psflow.proto.RecvTensorsRequest;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.proto.RegisterGraphResponse;
import dev.psflow.proto.ReplicaStatus;
import dev.psflow.proto.ResetRequest;
import dev.psflow.proto.ResetResponse;
import dev.psflow.proto.RunGraphRequest;
import dev.psflow.proto.RunGraphResponse;
import dev.psflow.proto.TensorProto;
import dev.psflow.proto.WorkerServiceGrpc;
import dev.psflow.tensor.Tensor;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Serves a {@link Worker} over gRPC: decode, call, encode; each handler has one catch. A peer may
 * have at most {@code max_pending_recvs_per_peer} RecvTensor calls waiting; a RunGraph whose caller
 * goes away aborts its step, and a RecvTensor whose caller goes away is forgotten.
 */
final class GrpcWorkerService extends WorkerServiceGrpc.WorkerServiceImplBase {
  /** The longest AbortStep message kept (it is stored with the step's abort record). */
  private static final int MAX_ABORT_MESSAGE = 1000;

  private final Worker worker;
  private final PendingRecvs pendingRecvs;

  GrpcWorkerService(Worker worker) {
    this.worker = worker;
    this.pendingRecvs = new PendingRecvs(worker.limits().maxPendingRecvsPerPeer());
  }

  @Override
  public void getStatus(GetStatusRequest req, StreamObserver<GetStatusResponse> out) {
    unary(out, () -> {
      var s = worker.status();
      GetStatusResponse.Builder b = GetStatusResponse.newBuilder().setTask(s.task()).addAllDevice(s.devices())
          .setIncarnation(s.incarnation()).setGlobalStep(s.globalStep()).setLiveSteps(s.liveSteps())
          .setNowUnixMillis(s.nowMillis());
      s.queues().forEach((name, size) -> b.addQueue(QueueStatus.newBuilder().setName(name).setSize(size)));
      s.accumulators().forEach(a -> b.addAccumulator(AccumulatorStatus.newBuilder().setName(a.name())
          .setNumAccumulated(a.numAccumulated()).setGlobalStep(a.globalStep()).setDropped(a.dropped())));
      s.replicas().forEach(r -> b.addReplica(ReplicaStatus.newBuilder().setTask(r.task()).setLastStep(r.lastStep())
          .setLastHeardUnixMillis(r.lastHeardMillis())));
      return b.build();
    });
  }

  @Override
  public void registerGraph(RegisterGraphRequest req, StreamObserver<RegisterGraphResponse> out) {
    unary(out, () -> RegisterGraphResponse.newBuilder().setGraphHandle(worker.registerGraph(req)).build());
  }

  @Override
  public void deregisterGraph(DeregisterGraphRequest req, StreamObserver<DeregisterGraphResponse> out) {
    unary(out, () -> {
      worker.deregisterGraph(req.getGraphHandle());
      return DeregisterGraphResponse.getDefaultInstance();
    });
  }

  @Override
  public void runGraph(RunGraphRequest req, StreamObserver<RunGraphResponse> out) {
    String caller = Peers.caller();
    ((ServerCallStreamObserver<RunGraphResponse>) out).setOnCancelHandler(() -> worker.abortStep(req.getStepId(),
        StatusException.cancelled("the caller of RunGraph for step " + req.getStepId() + " cancelled it or went away")));
    async(out, () -> {
      List<Tensor> feeds = new ArrayList<>(req.getFeedCount());
      for (TensorProto p : req.getFeedList()) {
        worker.limits().tensorSize().checkProto("RunGraph feed " + feeds.size(), p);
        feeds.add(TensorProtos.fromProto(p));
      }
      return worker.runGraph(req.getGraphHandle(), req.getStepId(), feeds, req.getTrace(), caller).thenApply(run -> {
        WholeMessages.check("the fetches of RunGraph for step " + req.getStepId(), run.fetches());
        RunGraphResponse.Builder b = RunGraphResponse.newBuilder();
        run.fetches().forEach(t -> b.addFetch(TensorProtos.toProto(t)));
        if (run.stats() != null) {
          b.setStepStats(StepStatsProtos.toProto(run.stats()));
        }
        return b.build();
      });
    });
  }

  /**
   * RecvTensor as served ({@link TensorWire}): the tensor goes out as {@link TensorChunk}s at the
   * pace the caller reads ({@link ChunkedSend}); the caller cancelling forgets the pull or stops the
   * transfer, and so does the step being aborted here.
   */
  void recvTensorChunked(RecvTensorRequest req, StreamObserver<TensorChunk> observer) {
    ServerCallStreamObserver<TensorChunk> out = (ServerCallStreamObserver<TensorChunk>) observer;
    String peer = Peers.current();
    if (!pendingRecvs.tryAcquire(peer)) {
      out.onError(StatusMapping.toGrpc(new StatusException(Code.RESOURCE_EXHAUSTED, peer + " already has "
          + pendingRecvs.max() + " RecvTensor calls waiting on " + worker.task()
          + " (max_pending_recvs_per_peer); each waits until its step sends the tensor, ends or is abandoned")));
      return;
    }
    CompletableFuture<Tensor> pulled;
    try {
      pulled = worker.recvTensor(req.getStepId(), req.getRendezvousKey());
    } catch (RuntimeException e) {
      pendingRecvs.release(peer);
      out.onError(StatusMapping.toGrpc(e));
      return;
    }
    pulled.whenComplete((t, e) -> pendingRecvs.release(peer));
    ChunkedSend<TensorChunk> send = ChunkedSend.of(out);
    out.setOnReadyHandler(send::pump);
    out.setOnCancelHandler(() -> {
      pulled.cancel(false);
      send.cancel();
    });
    pulled.whenComplete((t, e) -> {
      if (e != null) {
        send.fail(e);
      } else if (TensorChunk.elementsPerChunk(t) >= t.size()) {
        send.start(t); // one message: the step has nothing left to abort here
      } else {
        Runnable registered = worker.whileSending(req.getStepId(), send::fail);
        send.start(t);
        send.whenDone(registered);
      }
    });
  }

  /**
   * RecvTensors as served: each key a pull of its own from the step's table, answered as soon as
   * its tensor is there ({@link ChunkedSend#keyed}); every key counts against the caller's
   * pending RecvTensor calls. One pull failing fails the call (the caller's step is over); the
   * caller cancelling, or the step being aborted here, forgets the pulls still waiting.
   */
  void recvTensorsChunked(RecvTensorsRequest req, StreamObserver<KeyedChunk> observer) {
    ServerCallStreamObserver<KeyedChunk> out = (ServerCallStreamObserver<KeyedChunk>) observer;
    String peer = Peers.current();
    int n = req.getRendezvousKeyCount();
    if (n == 0) {
      out.onError(StatusMapping.toGrpc(new StatusException(Code.INVALID_ARGUMENT, "a RecvTensors call names no key")));
      return;
    }
    for (int i = 0; i < n; i++) {
      if (!pendingRecvs.tryAcquire(peer)) {
        for (int j = 0; j < i; j++) {
          pendingRecvs.release(peer);
        }
        out.onError(StatusMapping.toGrpc(new StatusException(Code.RESOURCE_EXHAUSTED, peer + " would have more than "
            + pendingRecvs.max() + " pulls waiting on " + worker.task() + " with this RecvTensors call of " + n
            + " keys (max_pending_recvs_per_peer); each waits until its step sends the tensor, ends or is abandoned")));
        return;
      }
    }
    List<CompletableFuture<Tensor>> pulled = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      CompletableFuture<Tensor> p;
      try {
        p = worker.recvTensor(req.getStepId(), req.getRendezvousKey(i));
      } catch (RuntimeException e) {
        p = CompletableFuture.failedFuture(e);
      }
      p.whenComplete((t, e) -> pendingRecvs.release(peer));
      pulled.add(p);
    }
    ChunkedSend<KeyedChunk> send = ChunkedSend.keyed(out, n);
    Runnable forget = () -> pulled.forEach(p -> p.cancel(false));
    out.setOnReadyHandler(send::pump);
    out.setOnCancelHandler(() -> {
      forget.run();
      send.cancel();
    });
    Runnable registered = worker.whileSending(req.getStepId(), why -> {
      send.fail(why);
      forget.run();
    });
    send.whenDone(registered);
    for (int i = 0; i < n; i++) {
      int key = i;
      pulled.get(i).whenComplete((t, e) -> {
        if (e != null) {
          send.fail(e);
          forget.run();
        } else {
          send.start(key, t);
        }
      });
    }
  }

  @Override
  public void abortStep(AbortStepRequest req, StreamObserver<AbortStepResponse> out) {
    unary(out, () -> {
      String why = req.getMessage().length() <= MAX_ABORT_MESSAGE ? req.getMessage()
          : req.getMessage().substring(0, MAX_ABORT_MESSAGE) + "...";
      worker.abortStep(req.getStepId(), new StatusException(Code.fromValue(req.getCode()), why));
      return AbortStepResponse.getDefaultInstance();
    });
  }

  @Override
  public void reset(ResetRequest req, StreamObserver<ResetResponse> out) {
    unary(out, () -> {
      worker.reset(req.getContainerList());
      return ResetResponse.getDefaultInstance();
    });
  }

  static <T> void unary(StreamObserver<T> out, Supplier<T> call) {
    T response;
    try {
      response = call.get();
    } catch (Throwable t) {
      out.onError(StatusMapping.toGrpc(t));
      return;
    }
    out.onNext(response);
    out.onCompleted();
  }

  static <T> void async(StreamObserver<T> out, Supplier<CompletableFuture<T>> call) {
    CompletableFuture<T> f;
    try {
      f = call.get();
    } catch (Throwable t) {
      out.onError(StatusMapping.toGrpc(t));
      return;
    }
    f.whenComplete((r, e) -> {
      if (e != null) {
        out.onError(StatusMapping.toGrpc(e));
      } else {
        try {
          out.onNext(r);
          out.onCompleted();
        } catch (RuntimeException ignored) {
          // the caller went away (cancelled or deadline): nothing to deliver
        }
      }
    });
  }
}
