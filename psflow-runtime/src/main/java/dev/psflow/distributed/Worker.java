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
import dev.psflow.ops.queue.Accumulator;
import dev.psflow.ops.queue.FifoQueue;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.Tensor;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The worker service of one task, transport-free: it registers graph partitions (one executor
 * each), runs them once per step, and serves peers' RecvTensor calls from each step's rendezvous.
 * The task's single CPU device and its resource manager are shared by every registered graph, so
 * the variables a ps holds are the same for every worker's session.
 *
 * <p>Nothing a peer asks for is kept without bound: registered graphs are capped per session and
 * per task, tensors by the device's size limit, and a daemon sweeper aborts every
 * {@link ServerLimits#abandonedStep()}/4 the steps that nothing runs here any more but that still
 * hold state (RecvTensor calls for a step that never comes, tensors sent and never taken). Its
 * thread stops at {@link #close()}. Thread-safe.
 *
 * <pre>{@code
 * Worker w = new Worker("/job:ps/replica:0/task:0", peers, FileAccessPolicy.under(root), ServerLimits.DEFAULTS);
 * String h = w.registerGraph(request);
 * w.runGraph(h, stepId, feeds, false).join().fetches();
 * w.close();
 * }</pre>
 */
public final class Worker implements AutoCloseable {
  /** Abort records kept at most (a step's late calls fail fast with its original error). */
  private static final int MAX_ABORT_RECORDS = 10_000;

  private record Aborted(StatusException why, long atNanos) {}

  private final String task;
  private final Device device;
  private final Function<String, WorkerClient> peers;
  private final ServerLimits limits;
  private final long incarnation = new SecureRandom().nextLong();
  private final RegisteredGraphs graphs;
  private final Map<Long, StepRendezvous> steps = new ConcurrentHashMap<>();
  private final Map<Long, Aborted> recentlyAborted = new ConcurrentHashMap<>();
  /** Per step, what to tell the answers to peers' pulls still being sent from here when the step is aborted. */
  private final Map<Long, Set<Consumer<StatusException>>> sending = new ConcurrentHashMap<>();
  private final ScheduledExecutorService sweeper;
  private final ReplicaActivity activity = new ReplicaActivity();
  private final TaskEvents events = new TaskEvents(activity);

  /** A worker for {@code task} with the default limits and unrestricted I/O, reaching other tasks through {@code peers}. */
  public Worker(String task, Function<String, WorkerClient> peers) {
    this(task, peers, FileAccessPolicy.UNRESTRICTED, ServerLimits.DEFAULTS);
  }

  /**
   * A worker for {@code task}, reaching other tasks through {@code peers} (task name → client), its
   * SaveV2/RestoreV2 touching only what {@code files} allows, holding no more than {@code limits}.
   */
  public Worker(String task, Function<String, WorkerClient> peers, FileAccessPolicy files, ServerLimits limits) {
    this.task = task;
    this.device = new Device(task + "/device:CPU:0", files, limits.tensorSize());
    this.peers = peers;
    this.limits = limits;
    this.graphs = new RegisteredGraphs(task, limits);
    device.setEvents(events);
    this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "psflow-step-sweeper " + task);
      t.setDaemon(true);
      return t;
    });
    long period = Math.max(10, limits.abandonedStep().toMillis() / 4);
    sweeper.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
  }

  public String task() {
    return task;
  }

  public Device device() {
    return device;
  }

  /** What peers may make this task hold (the transport enforces the per-connection ones). */
  public ServerLimits limits() {
    return limits;
  }

  /** This task's metrics, or null when they are off. */
  public TaskMetrics metrics() {
    return events.metrics();
  }

  /** Turns this task's metrics on (the {@link Server} does, with --metrics_port). */
  public void setMetrics(TaskMetrics m) {
    events.setMetrics(m);
  }

  /** What GetStatus reports: who this task is and what it holds now. */
  public WorkerClient.WorkerStatus status() {
    Map<String, Integer> queues = new TreeMap<>();
    device.resources().forEach(FifoQueue.class, (name, q) -> queues.put(name, q.size()));
    List<WorkerClient.AccumulatorInfo> accumulators = new ArrayList<>();
    List<String> accumulatorNames = new ArrayList<>(); // as the accumulators name themselves to TrainingEvents
    device.resources().forEach(Accumulator.class, (name, a) -> {
      accumulators.add(new WorkerClient.AccumulatorInfo(name, a.numAccumulated(), a.globalStep(), a.numDropped()));
      accumulatorNames.add(a.name());
    });
    accumulators.sort((a, b) -> a.name().compareTo(b.name()));
    return new WorkerClient.WorkerStatus(task, List.of(device.name()), incarnation, device.globalStep(), steps.size(),
        queues, accumulators, activity.snapshot(accumulatorNames), System.currentTimeMillis());
  }

  /**
   * Imports and prepares a partition; returns its handle. INVALID_ARGUMENT naming the problem;
   * RESOURCE_EXHAUSTED over a graph cap or when a tensor's known shape is over the size limit.
   */
  public String registerGraph(RegisterGraphRequest r) {
    device.tensorSizeLimit().checkGraphDef(r.getGraphDef());
    graphs.reserve(r.getSessionHandle());
    try {
      return graphs.add(r.getSessionHandle(), build(r));
    } catch (RuntimeException e) {
      graphs.release(r.getSessionHandle());
      throw e;
    }
  }

  private Executor build(RegisterGraphRequest r) {
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
    return Executor.build(Pruner.prune(roots, new HashSet<>(feeds)), device, feeds, fetches);
  }

  public void deregisterGraph(String handle) {
    graphs.remove(handle);
  }

  /** Runs one step of a registered partition; with {@code trace}, records every op's time and output bytes. */
  public CompletableFuture<WorkerClient.GraphRun> runGraph(String handle, long stepId, List<Tensor> feeds, boolean trace) {
    return runGraph(handle, stepId, feeds, trace, "");
  }

  /**
   * As {@link #runGraph(String, long, List, boolean)}, for the task {@code caller} ("" when unknown):
   * the step remembers who ran it and this task's global step as it began, so the applies in it
   * can tell how stale their gradients are and GetStatus when each worker was last heard from.
   */
  public CompletableFuture<WorkerClient.GraphRun> runGraph(String handle, long stepId, List<Tensor> feeds, boolean trace,
      String caller) {
    RegisteredGraphs.Registered g = graphs.get(handle);
    if (g == null) {
      return CompletableFuture.failedFuture(StatusException.aborted("graph " + RegisteredGraphs.abbreviate(handle)
          + " is not registered on " + task + " (the task may have restarted); the session must register it again"));
    }
    Aborted earlier = recentlyAborted.get(stepId);
    if (earlier != null) {
      return CompletableFuture.failedFuture(earlier.why());
    }
    StepRendezvous r = steps.compute(stepId, (id, s) -> {
      StepRendezvous step = s != null ? s : new StepRendezvous(id, task, peers);
      step.runStarted();
      return step;
    });
    CancellationManager cancel = r.cancellation();
    cancel.onCancel(() -> r.abort(cancel.cause()));
    StepStatsCollector stats = trace ? new StepStatsCollector(device.name()) : null;
    if (stats != null) {
      r.trace(stats);
    }
    long started = System.nanoTime();
    CompletableFuture<List<Tensor>> result;
    try {
      FeedChecks.check(g.executor().feeds(), feeds);
      long readGlobalStep = device.globalStep();
      activity.heard(caller, readGlobalStep);
      result = g.executor().run(new StepContext(stepId, cancel, r, stats, caller, readGlobalStep),
          feeds.toArray(Tensor[]::new));
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(StatusException.from(e));
    }
    return result.whenComplete((out, e) -> {
      if (e != null) {
        abortStep(stepId, StatusException.from(e instanceof CompletionException ? e.getCause() : e));
      }
      r.runDone();
      removeIfIdle(stepId, r);
      TaskMetrics m = events.metrics();
      if (m != null && e == null) {
        m.stepDone(System.nanoTime() - started);
      }
    }).thenApply(out -> new WorkerClient.GraphRun(out, stats == null ? null : stats.stats()));
  }

  /**
   * Serves a peer's pull of a tensor this task sent (or will send) in step {@code stepId}.
   * Cancelling the result (the caller went away) forgets the pull.
   */
  public CompletableFuture<Tensor> recvTensor(long stepId, String key) {
    Aborted earlier = recentlyAborted.get(stepId);
    if (earlier != null) {
      return CompletableFuture.failedFuture(earlier.why());
    }
    StepRendezvous r = steps.compute(stepId, (id, s) -> {
      StepRendezvous step = s != null ? s : new StepRendezvous(id, task, peers);
      step.recvComing();
      return step;
    });
    CompletableFuture<Tensor> out = new CompletableFuture<>();
    try {
      r.serveRecv(key, (t, e) -> {
        if (e != null) {
          out.completeExceptionally(e);
        } else {
          out.complete(t);
        }
        removeIfIdle(stepId, r);
      });
    } catch (RuntimeException e) {
      removeIfIdle(stepId, r);
      return CompletableFuture.failedFuture(StatusException.from(e));
    }
    out.whenComplete((t, e) -> {
      if (out.isCancelled() && r.forgetRecv(key)) {
        removeIfIdle(stepId, r);
      }
    });
    return out;
  }

  /** Fails the step here: the executor stops, pending Recvs (local and served) fail with {@code why}. */
  public void abortStep(long stepId, StatusException why) {
    if (recentlyAborted.size() >= MAX_ABORT_RECORDS) {
      recentlyAborted.clear(); // a flood of AbortStep calls: late calls of those steps just wait for the sweep
    }
    recentlyAborted.put(stepId, new Aborted(why, System.nanoTime()));
    StepRendezvous r = steps.remove(stepId);
    if (r != null) {
      r.cancellation().cancel(why);
      r.abort(why);
    }
    Set<Consumer<StatusException>> transfers = sending.remove(stepId);
    if (transfers != null) {
      transfers.forEach(t -> t.accept(why));
    }
  }

  /**
   * Registers a pull of step {@code stepId} whose tensor is still being sent from here (a large
   * tensor goes in chunks, after the rendezvous has handed it over): if the step is aborted before
   * the returned handle runs, {@code onAbort} gets the reason, at once if it is aborted already.
   * Run the handle when the transfer ends.
   */
  public Runnable whileSending(long stepId, Consumer<StatusException> onAbort) {
    sending.computeIfAbsent(stepId, id -> ConcurrentHashMap.newKeySet()).add(onAbort);
    Aborted earlier = recentlyAborted.get(stepId);
    if (earlier != null) {
      onAbort.accept(earlier.why());
    }
    return () -> sending.computeIfPresent(stepId, (id, s) -> s.remove(onAbort) && s.isEmpty() ? null : s);
  }

  /** Drops the resources of these containers (all variables of the default container for ""). */
  public void reset(List<String> containers) {
    for (String c : containers) {
      device.resources().clear(c);
    }
  }

  private void removeIfIdle(long stepId, StepRendezvous r) {
    steps.computeIfPresent(stepId, (id, s) -> s == r && s.isIdle() ? null : s);
  }

  /**
   * Aborts the steps abandoned here (nothing has run them for {@link ServerLimits#abandonedStep()},
   * yet they hold state) and forgets abort records older than that.
   */
  void sweep() {
    long now = System.nanoTime();
    long bound = limits.abandonedStep().toNanos();
    recentlyAborted.values().removeIf(a -> now - a.atNanos() > bound);
    steps.forEach((id, r) -> {
      String why = r.abandonment(now, bound);
      if (why != null) {
        abortStep(id, new StatusException(Code.ABORTED, "step " + id + " was abandoned: " + why));
      } else if (r.isIdle()) {
        removeIfIdle(id, r);
      }
    });
  }

  /** Number of steps with live state (for tests: should drop to zero once steps end). */
  public int liveSteps() {
    return steps.size();
  }

  /** Number of registered graphs (for tests). */
  public int registeredGraphs() {
    return graphs.size();
  }

  /** Stops the sweeper. Steps still running are the server's to cancel. */
  @Override
  public void close() {
    sweeper.shutdownNow();
  }
}
