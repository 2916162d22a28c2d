package dev.psflow.distributed;

import dev.psflow.exec.StatusException;
import dev.psflow.exec.StepStats;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * How a master or a peer task talks to one task's worker service. Every call is asynchronous and
 * fails with a {@link StatusException} whose message names the task. Two implementations: the gRPC
 * client (another process) and {@link InProcessWorkerClient} (the task in this process, no
 * serialization). Thread-safe; owned by the {@link WorkerCache} that created it.
 *
 * <pre>{@code
 * WorkerClient ps = workers.client("/job:ps/replica:0/task:0");
 * String handle = ps.registerGraph(request).join();
 * List<Tensor> fetched = ps.runGraph(handle, stepId, feeds, 0, false).join().fetches();
 * }</pre>
 */
public interface WorkerClient {
  /** The task this client talks to, e.g. {@code /job:ps/replica:0/task:0}. */
  String task();

  CompletableFuture<WorkerStatus> getStatus(long timeoutMillis);

  CompletableFuture<String> registerGraph(RegisterGraphRequest request);

  CompletableFuture<Void> deregisterGraph(String graphHandle);

  /**
   * Runs one step of a registered graph with its feeds (in registration order); returns its fetches,
   * and with {@code trace} every op's time and output bytes on that task.
   */
  CompletableFuture<GraphRun> runGraph(String graphHandle, long stepId, List<Tensor> feeds, long timeoutMillis,
      boolean trace);

  /** Pulls the tensor a _Send of step {@code stepId} left (or will leave) under {@code key} on that task. */
  CompletableFuture<Tensor> recvTensor(long stepId, String key);

  /**
   * Pulls several tensors of step {@code stepId} from that task, each as {@link #recvTensor} would:
   * result {@code i} is the tensor of {@code keys.get(i)}, complete as soon as that tensor is here,
   * whatever the others do. A transport may carry them in one call. Completing a result with an
   * error (the step aborted here) gives up the pull of that key; the transport may give up the
   * others of the same call with it (the step is over anyway).
   */
  default List<CompletableFuture<Tensor>> recvTensors(long stepId, List<String> keys) {
    List<CompletableFuture<Tensor>> out = new ArrayList<>(keys.size());
    for (String k : keys) {
      out.add(recvTensor(stepId, k));
    }
    return out;
  }

  /** Fails the step's pending and future Recvs on that task with {@code why}. */
  CompletableFuture<Void> abortStep(long stepId, StatusException why);

  /** Drops the resources (variables, queues) of these containers on that task. */
  CompletableFuture<Void> reset(List<String> containers);

  /** What one RunGraph returns: the fetches, and the task's step statistics (null when not traced). */
  record GraphRun(List<Tensor> fetches, StepStats.DeviceStepStats stats) {}

  /**
   * What GetStatus reports: the task, its devices, an id that changes when the task restarts, and
   * what it holds now: its global step (-1 when it holds none), live steps, FIFO queue sizes (by
   * name), accumulators, and each task that ran steps here with when it was last heard from (the
   * reporting task's clock, {@code nowMillis}, to read against).
   */
  record WorkerStatus(String task, List<String> devices, long incarnation, long globalStep, int liveSteps,
      Map<String, Integer> queues, List<AccumulatorInfo> accumulators, List<ReplicaSeen> replicas, long nowMillis) {
    public WorkerStatus(String task, List<String> devices, long incarnation) {
      this(task, devices, incarnation, -1, 0, Map.of(), List.of(), List.of(), System.currentTimeMillis());
    }
  }

  /** A conditional accumulator: gradients in hand for its global step, and stale ones dropped so far. */
  record AccumulatorInfo(String name, int numAccumulated, long globalStep, long dropped) {}

  /** A task that ran steps here: the last step it was seen at (-1: none yet) and when it was last heard from. */
  record ReplicaSeen(String task, long lastStep, long lastHeardMillis) {}
}
