package dev.psflow.distributed;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.exec.RunOptions;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.ops.OpRegistry;
import dev.psflow.proto.GraphDef;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The master service of one task, transport-free: it holds client sessions' graphs, and for each
 * step prunes, places and partitions them (once per (feeds, fetches, targets), then cached),
 * registers the partitions with their tasks and runs them — one RunGraph per task per step.
 * Thread-safe.
 *
 * <pre>{@code
 * String h = master.createSession(GraphDefs.toProto(graph), options);
 * List<Tensor> out = master.runStep(h, List.of("x:0"), List.of(x), List.of("y:0"), List.of(), RunOptions.DEFAULTS)
 *     .join().outputs();
 * }</pre>
 */
public final class Master implements MasterApi {
  private final String task;
  private final WorkerCache workers;
  private final PeerWaiter peers;
  private final TensorSizeLimit tensorSize;
  private final Map<String, MasterSession> sessions = new ConcurrentHashMap<>();
  /** Where step plans are built: planning waits on other tasks, so it never runs on the caller's thread. */
  private final ExecutorService planner = Executors.newVirtualThreadPerTaskExecutor();

  public Master(String task, WorkerCache workers, long peerWaitMillis) {
    this(task, workers, peerWaitMillis, TensorSizeLimit.DEFAULT);
  }

  /** A master whose sessions' GraphDefs may hold no tensor over {@code tensorSize}. */
  public Master(String task, WorkerCache workers, long peerWaitMillis, TensorSizeLimit tensorSize) {
    this.task = task;
    this.workers = workers;
    this.peers = new PeerWaiter(workers, peerWaitMillis);
    this.tensorSize = tensorSize;
  }

  @Override
  public String createSession(GraphDef graphDef, SessionOptions options) {
    tensorSize.checkGraphDef(graphDef);
    Graph g = new Graph();
    GraphDefs.importInto(g, graphDef, OpRegistry.core());
    List<String> devices = DeviceFilters.apply(workers.cluster().cpuDevices(), options.deviceFilters());
    peers.awaitTasks(devices);
    String handle = "session-" + UUID.randomUUID();
    sessions.put(handle, new MasterSession(handle, g, options, devices, task + "/device:CPU:0", workers, planner));
    return handle;
  }

  @Override
  public long extendSession(String handle, GraphDef delta, long currentVersion) {
    tensorSize.checkGraphDef(delta);
    return session(handle).extend(delta, currentVersion);
  }

  @Override
  public CompletableFuture<Session.Run> runStep(String handle, List<String> feedNames, List<Tensor> feedValues,
      List<String> fetches, List<String> targets, RunOptions options) {
    try {
      return session(handle).runStep(feedNames, feedValues, fetches, targets, options);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(StatusException.from(e));
    }
  }

  @Override
  public void closeSession(String handle) {
    MasterSession s = sessions.remove(handle);
    if (s != null) {
      s.close();
    }
  }

  @Override
  public List<String> listDevices() {
    return workers.cluster().cpuDevices();
  }

  @Override
  public void reset(List<String> containers, List<String> deviceFilters) {
    for (String device : DeviceFilters.apply(workers.cluster().cpuDevices(), deviceFilters)) {
      workers.client(StepRendezvous.taskOf(device)).reset(containers).join();
    }
  }

  /** Stops planning; sessions' steps in flight fail. Called by the server when it stops. */
  void close() {
    planner.shutdownNow();
  }

  public ClusterSpec cluster() {
    return workers.cluster();
  }

  private MasterSession session(String handle) {
    MasterSession s = sessions.get(handle);
    if (s == null) {
      throw StatusException.aborted("session " + handle + " does not exist on the master of " + task
          + " (the server may have restarted); open a new session");
    }
    return s;
  }
}
