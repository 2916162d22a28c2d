package dev.psflow.distributed;

import dev.psflow.exec.CancellationManager;
import dev.psflow.exec.Code;
import dev.psflow.exec.Device;
import dev.psflow.exec.Executor;
import dev.psflow.exec.FileAccessPolicy;
import dev.psflow.exec.FeedChecks;
import dev.psflow.exec.Pruner;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.StepContext;
import dev.psflow.exec.StepStatsCollector;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.OpRegistry;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.Tensor;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The worker service of one task, transport-free: it registers graph partitions (one executor
 * each), runs them once per step, and serves peers' RecvTensor calls from each step's rendezvous.
 * The task's single CPU device and its resource manager are shared by every registered graph, so
 * the variables a ps holds are the same for every worker's session. Thread-safe.
 *
 * <pre>{@code
 * Worker w = new Worker("/job:ps/replica:0/task:0", peers);
 * String h = w.registerGraph(request);
 * w.runGraph(h, stepId, feeds, false).join().fetches();
 * }</pre>
 */
public final class Worker {
  private static final long ABANDONED_STEP_NANOS = TimeUnit.MINUTES.toNanos(10);

  private record Registered(String sessionHandle, Executor executor) {}

  private final String task;
  private final Device device;
  private final Function<String, WorkerClient> peers;
  private final long incarnation = new SecureRandom().nextLong();
  private final Map<String, Registered> graphs = new ConcurrentHashMap<>();
  private final Map<Long, StepRendezvous> steps = new ConcurrentHashMap<>();
  private final Map<Long, StatusException> recentlyAborted = new ConcurrentHashMap<>();
  private final AtomicLong handles = new AtomicLong();

  /** A worker for {@code task}, reaching other tasks through {@code peers} (task name → client); I/O unrestricted. */
  public Worker(String task, Function<String, WorkerClient> peers) {
    this(task, peers, FileAccessPolicy.UNRESTRICTED);
  }

  /** As above, its SaveV2/RestoreV2 touching only what {@code files} allows. */
  public Worker(String task, Function<String, WorkerClient> peers, FileAccessPolicy files) {
    this.task = task;
    this.device = new Device(task + "/device:CPU:0", files);
    this.peers = peers;
  }

  public String task() {
    return task;
  }

  public Device device() {
    return device;
  }

  public WorkerClient.WorkerStatus status() {
    return new WorkerClient.WorkerStatus(task, List.of(device.name()), incarnation);
  }

  /** Imports and prepares a partition; returns its handle. INVALID_ARGUMENT naming the problem. */
  public String registerGraph(RegisterGraphRequest r) {
    Graph g = new Graph();
    GraphDefs.importInto(g, r.getGraphDef(), OpRegistry.core());
    List<Output> feeds = new ArrayList<>();
    r.getFeedList().forEach(n -> feeds.add(g.output(n)));
    List<Output> fetches = new ArrayList<>();
    r.getFetchList().forEach(n -> fetches.add(g.output(n)));
    Set<Operation> feedOps = new HashSet<>();
    feeds.forEach(f -> feedOps.add(f.op()));
    List<Operation> roots = new ArrayList<>();
    for (Operation op : g.operations()) {
      if (!feedOps.contains(op)) {
        roots.add(op);
      }
    }
    Executor ex = Executor.build(Pruner.prune(roots, new HashSet<>(feeds)), device, feeds, fetches);
    String handle = "graph-" + handles.incrementAndGet();
    graphs.put(handle, new Registered(r.getSessionHandle(), ex));
    return handle;
  }

  public void deregisterGraph(String handle) {
    graphs.remove(handle);
  }

  /** Runs one step of a registered partition; with {@code trace}, records every op's time and output bytes. */
  public CompletableFuture<WorkerClient.GraphRun> runGraph(String handle, long stepId, List<Tensor> feeds, boolean trace) {
    Registered g = graphs.get(handle);
    if (g == null) {
      return CompletableFuture.failedFuture(StatusException.aborted("graph " + handle + " is not registered on "
          + task + " (the task may have restarted); the session must register it again"));
    }
    StatusException earlier = recentlyAborted.get(stepId);
    if (earlier != null) {
      return CompletableFuture.failedFuture(earlier);
    }
    StepRendezvous r = step(stepId);
    CancellationManager cancel = r.cancellation();
    cancel.onCancel(() -> r.abort(cancel.cause()));
    StepStatsCollector stats = trace ? new StepStatsCollector(device.name()) : null;
    CompletableFuture<List<Tensor>> result;
    try {
      FeedChecks.check(g.executor().feeds(), feeds);
      result = g.executor().run(new StepContext(stepId, cancel, r, stats), feeds.toArray(Tensor[]::new));
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(StatusException.from(e));
    }
    return result.whenComplete((out, e) -> {
      if (e != null) {
        abortStep(stepId, StatusException.from(e instanceof java.util.concurrent.CompletionException ? e.getCause() : e));
      }
      r.markRunDone();
      removeIfFinished(stepId, r);
    }).thenApply(out -> new WorkerClient.GraphRun(out, stats == null ? null : stats.stats()));
  }

  /** Serves a peer's pull of a tensor this task sent (or will send) in step {@code stepId}. */
  public CompletableFuture<Tensor> recvTensor(long stepId, String key) {
    StatusException earlier = recentlyAborted.get(stepId);
    if (earlier != null) {
      return CompletableFuture.failedFuture(earlier);
    }
    StepRendezvous r = step(stepId);
    CompletableFuture<Tensor> out = new CompletableFuture<>();
    r.serveRecv(key, (t, e) -> {
      if (e != null) {
        out.completeExceptionally(e);
      } else {
        out.complete(t);
        removeIfFinished(stepId, r);
      }
    });
    return out;
  }

  /** Fails the step here: the executor stops, pending Recvs (local and served) fail with {@code why}. */
  public void abortStep(long stepId, StatusException why) {
    recentlyAborted.put(stepId, why);
    StepRendezvous r = steps.remove(stepId);
    if (r != null) {
      r.cancellation().cancel(why);
      r.abort(why);
    }
    sweep();
  }

  /** Drops the resources of these containers (all variables of the default container for ""). */
  public void reset(List<String> containers) {
    for (String c : containers) {
      device.resources().clear(c);
    }
  }

  private StepRendezvous step(long stepId) {
    return steps.computeIfAbsent(stepId, id -> new StepRendezvous(id, task, peers));
  }

  private void removeIfFinished(long stepId, StepRendezvous r) {
    if (r.isFinished()) {
      steps.remove(stepId, r);
    }
  }

  /** Forgets abandoned steps (a master that died mid-step) and old abort records. */
  private void sweep() {
    if (recentlyAborted.size() > 10_000) {
      recentlyAborted.clear();
    }
    steps.forEach((id, r) -> {
      if (r.ageNanos() > ABANDONED_STEP_NANOS) {
        abortStep(id, new StatusException(Code.ABORTED, "step " + id + " was abandoned on " + task));
      }
    });
  }

  /** Number of steps with live state (for tests: should drop to zero once steps end). */
  public int liveSteps() {
    return steps.size();
  }
}
