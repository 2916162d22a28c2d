package dev.psflow.distributed;

import dev.psflow.exec.StatusException;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A {@link WorkerClient} for a worker in this process: direct calls, tensors passed by reference, no
 * serialization. Used by a master for its own task (the common case: a worker process's client
 * talks to its own server) and by in-process tests.
 */
public final class InProcessWorkerClient implements WorkerClient {
  private final Worker worker;

  public InProcessWorkerClient(Worker worker) {
    this.worker = worker;
  }

  @Override
  public String task() {
    return worker.task();
  }

  @Override
  public CompletableFuture<WorkerStatus> getStatus(long timeoutMillis) {
    return call(worker::status);
  }

  @Override
  public CompletableFuture<String> registerGraph(RegisterGraphRequest request) {
    return call(() -> worker.registerGraph(request));
  }

  @Override
  public CompletableFuture<Void> deregisterGraph(String graphHandle) {
    return call(() -> {
      worker.deregisterGraph(graphHandle);
      return null;
    });
  }

  @Override
  public CompletableFuture<GraphRun> runGraph(String graphHandle, long stepId, List<Tensor> feeds, long timeoutMillis,
      boolean trace) {
    return worker.runGraph(graphHandle, stepId, feeds, trace);
  }

  @Override
  public CompletableFuture<Tensor> recvTensor(long stepId, String key) {
    return worker.recvTensor(stepId, key);
  }

  @Override
  public CompletableFuture<Void> abortStep(long stepId, StatusException why) {
    return call(() -> {
      worker.abortStep(stepId, why);
      return null;
    });
  }

  @Override
  public CompletableFuture<Void> reset(List<String> containers) {
    return call(() -> {
      worker.reset(containers);
      return null;
    });
  }

  private static <T> CompletableFuture<T> call(Supplier<T> s) {
    try {
      return CompletableFuture.completedFuture(s.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(StatusException.from(e));
    }
  }
}
