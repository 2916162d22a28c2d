package dev.psflow.distributed;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.psflow.exec.ResourceManager;
import dev.psflow.exec.TrainingEvents;
import dev.psflow.ops.queue.Accumulator;
import dev.psflow.ops.queue.FifoQueue;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmNativeMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One task's Prometheus metrics (served at {@code /metrics} by {@link MetricsEndpoint}): its steps
 * and their latency, its RPCs by method and peer, the staleness of the gradients applied here, sync
 * replication's accumulators and token queues, checkpoint writes, and the JVM's and process's own
 * figures. Each task has its own registry, so several servers in one JVM report apart.
 *
 * <p>Cheap on the hot path: the data point of each label combination is looked up once and cached
 * ({@link #rpc}), so a call costs a map get and a few adds; no metric keeps exemplars (their
 * sampler schedules a task per observation, and psflow has no traces for them to point at). Thread-safe.
 *
 * <pre>{@code
 * TaskMetrics m = new TaskMetrics("ps", worker.device().resources(), figures); // figures: live steps, global step
 * m.rpc(TaskMetrics.Side.SERVER, "RunGraph", "/job:worker/replica:0/task:0").done(1_000_000);
 * MetricsEndpoint.start(m, "127.0.0.1", 0);
 * }</pre>
 */
public final class TaskMetrics implements TrainingEvents {
  /** Which end of an RPC this task was. */
  public enum Side { SERVER, CLIENT }

  /** The data points of one (side, method, peer): latency (its count is the call count) and bytes. */
  public record Rpc(DistributionDataPoint seconds, CounterDataPoint bytesIn, CounterDataPoint bytesOut) {
    public void done(long nanos) {
      seconds.observe(nanos / 1e9);
    }
  }

  private static final double[] SECONDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
      5, 10, 30, 60};
  private static final double[] STALENESS = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128};

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final DistributionDataPoint stepSeconds;
  private final CounterDataPoint steps;
  private final DistributionDataPoint applyStaleness;
  private final DistributionDataPoint accumulatorStaleness;
  private final CounterDataPoint accumulated;
  private final CounterDataPoint dropped;
  private final Histogram checkpointSeconds;
  private final Counter checkpointBytes;
  private final Histogram rpcSeconds;
  private final Counter rpcBytesIn;
  private final Counter rpcBytesOut;
  private final Map<Side, Map<String, Map<String, Rpc>>> rpcs = Map.of(
      Side.SERVER, new ConcurrentHashMap<>(), Side.CLIENT, new ConcurrentHashMap<>());

  /**
   * Metrics of a task of {@code role} (its job: "ps", "worker") whose queues and accumulators live in
   * {@code resources}, reading its live steps and global step from {@code task}.
   */
  public TaskMetrics(String role, ResourceManager resources, TaskFigures task) {
    steps = Counter.builder().name("psflow_steps_total").help("Steps (RunGraph calls) this task ran, by role")
        .labelNames("role").withoutExemplars().register(registry).labelValues(role);
    stepSeconds = Histogram.builder().name("psflow_step_duration_seconds")
        .help("Time one step (RunGraph) took on this task, by role").labelNames("role")
        .classicOnly().classicUpperBounds(SECONDS).withoutExemplars().register(registry).labelValues(role);
    Histogram staleness = Histogram.builder().name("psflow_gradient_staleness")
        .help("Global steps between a worker's read of the parameters and the arrival of its gradient here:"
            + " at=apply, at each ResourceApply op on the task holding global_step (async training);"
            + " at=accumulator, at each sync accumulator (the step the gradient was computed for)")
        .labelNames("at").classicOnly().classicUpperBounds(STALENESS).withoutExemplars().register(registry);
    applyStaleness = staleness.labelValues("apply");
    accumulatorStaleness = staleness.labelValues("accumulator");
    accumulated = Counter.builder().name("psflow_sync_gradients_accumulated_total")
        .help("Sync replicas' gradients added to an accumulator").withoutExemplars().register(registry).labelValues();
    dropped = Counter.builder().name("psflow_sync_gradients_dropped_total")
        .help("Sync replicas' gradients dropped as stale (computed before the accumulator's global step)")
        .withoutExemplars().register(registry).labelValues();
    GaugeWithCallback.builder().name("psflow_sync_queue_tokens").help("Elements in each FIFO queue (sync tokens)")
        .labelNames("queue")
        .callback(cb -> resources.forEach(FifoQueue.class, (name, q) -> cb.call(q.size(), name)))
        .register(registry);
    GaugeWithCallback.builder().name("psflow_sync_accumulator_gradients")
        .help("Gradients in each accumulator for its current global step").labelNames("accumulator")
        .callback(cb -> resources.forEach(Accumulator.class, (name, a) -> cb.call(a.numAccumulated(), name)))
        .register(registry);
    GaugeWithCallback.builder().name("psflow_live_steps").help("Steps with state on this task now")
        .callback(cb -> cb.call(task.liveSteps())).register(registry);
    GaugeWithCallback.builder().name("psflow_global_step").help("The global_step variable, on the task that holds it")
        .callback(cb -> {
          long g = task.globalStep();
          if (g >= 0) {
            cb.call(g);
          }
        }).register(registry);
    checkpointSeconds = Histogram.builder().name("psflow_checkpoint_save_duration_seconds")
        .help("Time one SaveV2 (this task's checkpoint shard) took").classicOnly().classicUpperBounds(SECONDS)
        .withoutExemplars().register(registry);
    checkpointBytes = Counter.builder().name("psflow_checkpoint_saved_bytes_total")
        .help("Bytes of checkpoint shards this task wrote").withoutExemplars().register(registry);
    rpcSeconds = Histogram.builder().name("psflow_rpc_duration_seconds")
        .help("RPCs by side (server: served here; client: made from here), method and peer task, and their time")
        .labelNames("side", "method", "peer").classicOnly().classicUpperBounds(SECONDS).withoutExemplars()
        .register(registry);
    rpcBytesIn = Counter.builder().name("psflow_rpc_received_bytes_total")
        .help("Message bytes received (serialized, before HTTP/2 framing) by side, method and peer")
        .labelNames("side", "method", "peer").withoutExemplars().register(registry);
    rpcBytesOut = Counter.builder().name("psflow_rpc_sent_bytes_total")
        .help("Message bytes sent (serialized, before HTTP/2 framing) by side, method and peer")
        .labelNames("side", "method", "peer").withoutExemplars().register(registry);
    registerJvmMetrics(registry);
  }

  /**
   * The client library's JVM and process metrics, as {@code JvmMetrics.builder().register(registry)}
   * registers them, except:
   *
   * <ul>
   *   <li>the native-memory ones when Native Memory Tracking is off (the JVM's default): those then
   *       report nothing, yet asking found that out by starting the platform MBean server, 150 ms of
   *       each task's start (async-profiler, wall clock, a ps task alone);
   *   <li>the bytes allocated per memory pool ({@code jvm_memory_pool_allocated_bytes_total}): they
   *       are counted from a notification the JVM builds after every collection only while someone
   *       listens, through JMX's open types, about 1 ms each on the JVM's notification thread, and a
   *       worker collects every ~100 ms: 35-38 ms of every task's CPU in the README's 2000-step
   *       job (async-profiler). The collections themselves ({@code jvm_gc_collection_seconds}) are
   *       read when scraped, as the heap's use is.
   * </ul>
   */
  private static void registerJvmMetrics(PrometheusRegistry registry) {
    JvmThreadsMetrics.builder().register(registry);
    JvmBufferPoolMetrics.builder().register(registry);
    JvmClassLoadingMetrics.builder().register(registry);
    JvmCompilationMetrics.builder().register(registry);
    JvmGarbageCollectorMetrics.builder().register(registry);
    JvmMemoryMetrics.builder().register(registry);
    if (nativeMemoryTracking()) {
      JvmNativeMemoryMetrics.builder().register(registry);
    }
    JvmRuntimeInfoMetric.builder().register(registry);
    ProcessMetrics.builder().register(registry);
  }

  /** Whether the JVM runs with -XX:NativeMemoryTracking=summary or detail (read without the MBean server). */
  private static boolean nativeMemoryTracking() {
    try {
      HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      return vm == null || !"off".equals(vm.getVMOption("NativeMemoryTracking").getValue());
    } catch (RuntimeException e) {
      return true; // not HotSpot, or the option is gone: let the library find out
    }
  }

  /** What the metrics read from the task when scraped. */
  public interface TaskFigures {
    int liveSteps();

    long globalStep();
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  /** A step ran here for {@code nanos}. */
  public void stepDone(long nanos) {
    steps.inc();
    stepSeconds.observe(nanos / 1e9);
  }

  /** The cached data points of RPC {@code method} (e.g. "RunGraph") with {@code peer} on {@code side}. */
  public Rpc rpc(Side side, String method, String peer) {
    Map<String, Rpc> byPeer = rpcs.get(side).computeIfAbsent(method, m -> new ConcurrentHashMap<>());
    Rpc r = byPeer.get(peer);
    if (r == null) {
      String s = side.name().toLowerCase(Locale.ROOT);
      r = byPeer.computeIfAbsent(peer, p -> new Rpc(rpcSeconds.labelValues(s, method, p),
          rpcBytesIn.labelValues(s, method, p), rpcBytesOut.labelValues(s, method, p)));
    }
    return r;
  }

  @Override
  public void gradientApplied(long readStep, long nowStep) {
    applyStaleness.observe(Math.max(0, nowStep - readStep));
  }

  @Override
  public void gradientAccumulated(String caller, String accumulator, long localStep, long globalStep,
      boolean added) {
    accumulatorStaleness.observe(Math.max(0, globalStep - localStep));
    (added ? accumulated : dropped).inc();
  }

  @Override
  public void checkpointSaved(long bytes, long nanos) {
    checkpointSeconds.observe(nanos / 1e9);
    checkpointBytes.inc(bytes);
  }
}
