package dev.psflow.distributed;

import dev.psflow.exec.Code;
import dev.psflow.exec.FeedChecks;
import dev.psflow.exec.RunMetadata;
import dev.psflow.exec.RunOptions;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.StepStats;
import dev.psflow.exec.StepStatsCollector;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.OpRegistry;
import dev.psflow.proto.GraphDef;
import dev.psflow.tensor.Tensor;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One client session on a master: its graph, and for each (feeds, fetches, targets) a
 * {@link StepPlan} — partitions registered with their tasks. A step runs every partition of its
 * plan at once with one step id; the first failure aborts the step on every task and is returned
 * with its code. Thread-safe.
 */
final class MasterSession {
  /**
   * A step's plan's key, looked up on every step: equals and hashCode written out, as {@code
   * ResourceManager}'s key's are (a record's own run through a method-handle chain C1 does not inline).
   */
  private record Signature(List<String> feeds, List<String> fetches, List<String> targets) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Signature s && feeds.equals(s.feeds) && fetches.equals(s.fetches)
          && targets.equals(s.targets);
    }

    @Override
    public int hashCode() {
      return (31 * feeds.hashCode() + fetches.hashCode()) * 31 + targets.hashCode();
    }
  }

  private static final AtomicLong STEP_IDS = new AtomicLong(new SecureRandom().nextLong() >>> 2);

  private final String handle;
  private final Graph graph;
  private final SessionOptions options;
  private final List<String> devices;
  private final String defaultDevice;
  private final WorkerCache workers;
  private final Executor planner;
  private final Map<Signature, CompletableFuture<StepPlan>> plans = new ConcurrentHashMap<>();

  MasterSession(String handle, Graph graph, SessionOptions options, List<String> devices, String defaultDevice,
      WorkerCache workers, Executor planner) {
    this.handle = handle;
    this.graph = graph;
    this.options = options;
    this.devices = devices;
    this.defaultDevice = defaultDevice;
    this.workers = workers;
    this.planner = planner;
  }

  long extend(GraphDef delta, long currentVersion) {
    if (currentVersion != graph.version()) {
      throw StatusException.aborted("session " + handle + " has graph version " + graph.version()
          + " but the client extends version " + currentVersion);
    }
    GraphDefs.importInto(graph, delta, OpRegistry.core());
    return graph.version();
  }

  /**
   * Runs one step. Never waits: a step whose plan is not built yet continues on the planning
   * executor (planning registers partitions with other tasks, which may take a round trip each),
   * so the caller — a transport thread, for a remote client — is never held.
   */
  CompletableFuture<Session.Run> runStep(List<String> feedNames, List<Tensor> feedValues, List<String> fetchNames,
      List<String> targetNames, RunOptions runOptions) {
    Signature sig = new Signature(List.copyOf(feedNames), List.copyOf(fetchNames), List.copyOf(targetNames));
    long timeout = runOptions.timeoutMillis() > 0 ? runOptions.timeoutMillis() : options.operationTimeoutMillis();
    boolean trace = runOptions.traced();
    CompletableFuture<StepPlan> f = plans.get(sig);
    StepPlan ready = f == null ? null : f.getNow(null);
    if (ready != null) {
      FeedChecks.check(ready.feeds(), feedValues);
      return execute(ready, sig, STEP_IDS.incrementAndGet(), feedValues, timeout, trace);
    }
    if (f == null) {
      f = plan(sig, feedValues);
    }
    return f.handle((plan, e) -> {
      if (e != null) {
        throw StatusException.from(e instanceof CompletionException ? e.getCause() : e);
      }
      FeedChecks.check(plan.feeds(), feedValues);
      return plan;
    }).thenCompose(plan -> execute(plan, sig, STEP_IDS.incrementAndGet(), feedValues, timeout, trace));
  }

  /** The plan of {@code sig}, built once (on the planning executor) however many steps ask at once. */
  private CompletableFuture<StepPlan> plan(Signature sig, List<Tensor> feedValues) {
    List<Output> feeds = sig.feeds().stream().map(this::tensor).toList();
    FeedChecks.check(feeds, feedValues);
    List<Output> fetches = sig.fetches().stream().map(this::tensor).toList();
    List<Operation> targets = sig.targets().stream().map(this::op).toList();
    CompletableFuture<StepPlan> mine = new CompletableFuture<>();
    CompletableFuture<StepPlan> theirs = plans.putIfAbsent(sig, mine);
    if (theirs != null) {
      return theirs;
    }
    CompletableFuture
        .supplyAsync(() -> StepPlan.partition(feeds, fetches, targets, devices, defaultDevice, options), planner)
        .thenCompose(partitions -> StepPlan.register(handle, feeds, partitions, workers))
        .whenComplete((plan, e) -> {
          if (e != null) {
            plans.remove(sig, mine);
            mine.completeExceptionally(e instanceof CompletionException ? e.getCause() : e);
          } else {
            mine.complete(plan);
          }
        });
    return mine;
  }

  private CompletableFuture<Session.Run> execute(StepPlan plan, Signature sig, long stepId, List<Tensor> feedValues,
      long timeoutMillis, boolean trace) {
    StepStats.DeviceStepStats[] stats = trace ? new StepStats.DeviceStepStats[plan.parts().size()] : null;
    // When traced, the master's own task reports the RunGraph calls it made (how long each task's part took, seen from here).
    StepStatsCollector calls = trace ? new StepStatsCollector(defaultDevice) : null;
    Tensor[] results = new Tensor[sig.fetches().size()];
    AtomicReference<StatusException> first = new AtomicReference<>();
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    for (int part = 0; part < plan.parts().size(); part++) {
      StepPlan.Part p = plan.parts().get(part);
      int partIndex = part;
      List<Tensor> feeds = new ArrayList<>(p.feedIndex().size());
      p.feedIndex().forEach(i -> feeds.add(feedValues.get(i)));
      long callNanos = trace ? System.nanoTime() : 0;
      runs.add(p.client().runGraph(p.graphHandle(), stepId, feeds, timeoutMillis, trace).handle((run, e) -> {
        if (calls != null) {
          calls.rpcDone("RunGraph", StepStats.Side.CLIENT, p.task(), RegisteredGraphs.abbreviate(p.graphHandle()),
              callNanos, System.nanoTime(), 0);
        }
        if (e != null) {
          StatusException s = StatusException.from(e instanceof CompletionException ? e.getCause() : e);
          if (first.compareAndSet(null, s)) {
            abortEverywhere(plan, stepId, s);
          }
          return null;
        }
        List<Tensor> out = run.fetches();
        for (int i = 0; i < out.size(); i++) {
          results[p.fetchIndex().get(i)] = out.get(i);
        }
        if (stats != null) {
          stats[partIndex] = run.stats();
        }
        return null;
      }));
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new));
    if (timeoutMillis > 0) {
      all = all.orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).exceptionally(e -> {
        StatusException s = new StatusException(Code.DEADLINE_EXCEEDED,
            "step " + stepId + " did not finish within " + timeoutMillis + " ms");
        if (first.compareAndSet(null, s)) {
          abortEverywhere(plan, stepId, s);
        }
        return null;
      });
    }
    return all.thenApply(v -> {
      StatusException s = first.get();
      if (s != null) {
        if (s.code() == Code.ABORTED || s.code() == Code.UNAVAILABLE) {
          plans.remove(sig); // a task may have restarted: register again next time
        }
        throw s;
      }
      RunMetadata metadata = stats == null ? RunMetadata.EMPTY : new RunMetadata(withCalls(stepId, stats, calls));
      return new Session.Run(List.of(results), metadata);
    });
  }

  /** The tasks' stats, the master's RunGraph calls joined to its own task's entry (one entry per task). */
  private StepStats withCalls(long stepId, StepStats.DeviceStepStats[] stats, StepStatsCollector calls) {
    StepStats.DeviceStepStats mine = calls.stats();
    List<StepStats.DeviceStepStats> devStats = new ArrayList<>();
    for (StepStats.DeviceStepStats d : stats) {
      if (d != null && d.device().equals(defaultDevice)) {
        List<StepStats.RpcStats> rpcs = new ArrayList<>(d.rpcStats());
        rpcs.addAll(mine.rpcStats());
        mine = null;
        devStats.add(new StepStats.DeviceStepStats(d.device(), d.nodeStats(), rpcs));
      } else if (d != null) {
        devStats.add(d);
      }
    }
    if (mine != null) {
      devStats.add(mine);
    }
    return new StepStats(stepId, devStats);
  }

  private void abortEverywhere(StepPlan plan, long stepId, StatusException why) {
    for (StepPlan.Part p : plan.parts()) {
      p.client().abortStep(stepId, why);
    }
  }

  private Output tensor(String name) {
    try {
      return graph.output(name);
    } catch (IllegalArgumentException e) {
      throw StatusException.notFound(e.getMessage());
    }
  }

  private Operation op(String name) {
    Operation op = graph.operation(name);
    if (op == null) {
      throw StatusException.notFound("no op named '" + name + "' in the session's graph");
    }
    return op;
  }

  void close() {
    for (CompletableFuture<StepPlan> f : plans.values()) {
      if (f.isDone() && !f.isCompletedExceptionally()) {
        for (StepPlan.Part p : f.join().parts()) {
          p.client().deregisterGraph(p.graphHandle());
        }
      }
    }
    plans.clear();
  }
}
