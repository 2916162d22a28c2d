package dev.psflow.exec;

import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A session that runs the whole graph in this process on one CPU device,
 * {@code /job:localhost/replica:0/task:0/device:CPU:0}, whose resource manager holds the
 * session's variables. Executors are cached per (feeds, fetches, targets), so a training loop
 * prunes and builds once. Thread-safe; close to drop the variables.
 */
public final class LocalSession implements Session {
  public static final String DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0";

  private record Signature(List<Output> feeds, List<Output> fetches, List<Operation> targets) {}

  private final Graph graph;
  private final SessionOptions options;
  private final Device device;
  private final Map<Signature, Executor> executors = new ConcurrentHashMap<>();
  private final AtomicLong stepIds = new AtomicLong();
  private volatile boolean closed;
  private volatile StepTracer tracer;

  public LocalSession(Graph graph, SessionOptions options) {
    this(graph, options, new Device(DEVICE));
  }

  /** A session whose variables live in {@code device}'s resource manager (shared with other sessions on it). */
  public LocalSession(Graph graph, SessionOptions options, Device device) {
    this.graph = graph;
    this.options = options;
    this.device = device;
  }

  @Override
  public Graph graph() {
    return graph;
  }

  public Device device() {
    return device;
  }

  @Override
  public List<Tensor> run(RunRequest r) {
    return run(r, tracer);
  }

  @Override
  public Run runWithMetadata(RunRequest r) {
    if (!r.options().traced()) {
      return new Run(run(r, tracer), RunMetadata.EMPTY);
    }
    StepStatsCollector stats = new StepStatsCollector(device.name());
    long stepId = stepIds.incrementAndGet();
    List<Tensor> out = run(r, stats, stepId);
    return new Run(out, new RunMetadata(new StepStats(stepId, List.of(stats.stats()))));
  }

  private List<Tensor> run(RunRequest r, StepTracer stepTracer) {
    return run(r, stepTracer, stepIds.incrementAndGet());
  }

  private List<Tensor> run(RunRequest r, StepTracer stepTracer, long stepId) {
    if (closed) {
      throw new IllegalStateException("session is closed");
    }
    FeedChecks.check(r.feeds(), r.feedValues());
    Executor ex = executors.computeIfAbsent(new Signature(r.feeds(), r.fetches(), r.targets()), this::build);
    long timeout = r.timeoutMillis() > 0 ? r.timeoutMillis() : options.operationTimeoutMillis();
    StepContext step = StepContext.local(stepId).withTracer(stepTracer);
    return Steps.await(ex.run(step, r.feedValues().toArray(Tensor[]::new)), step, timeout);
  }

  private Executor build(Signature s) {
    Set<Output> fed = new HashSet<>(s.feeds());
    List<Operation> roots = new ArrayList<>(s.targets());
    for (Output f : s.fetches()) {
      if (!fed.contains(f)) {
        roots.add(f.op());
      }
    }
    return Executor.build(Pruner.prune(roots, fed), device, s.feeds(), s.fetches());
  }

  /** Times every op of the following runs (null: stop tracing). */
  public void setTracer(StepTracer t) {
    this.tracer = t;
  }

  @Override
  public void close() {
    closed = true;
    executors.clear();
  }
}
