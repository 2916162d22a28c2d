package dev.psflow.distributed;

import dev.psflow.exec.CancellationManager;
import dev.psflow.exec.Code;
import dev.psflow.exec.LocalRendezvous;
import dev.psflow.exec.Rendezvous;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.StepStats;
import dev.psflow.exec.StepTracer;
import dev.psflow.ops.sendrecv.RendezvousKeys;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The rendezvous of one step on one task. Sends always land in the local table; a Recv whose
 * sender is on this task waits there, and one whose sender is elsewhere pulls the tensor from that
 * task (TensorFlow's pull model). Such pulls are held until the executor {@link #flush flushes},
 * so that those of one executor pass that wait on the same task go as one call ({@link
 * WorkerClient#recvTensors}): a worker's pulls of the parameters, a ps's of the gradients.
 * {@code -Dpsflow.batch_pulls=false} sends each pull as its own RecvTensor call instead. Peers'
 * pulls are served from the local table. Thread-safe.
 */
final class StepRendezvous implements Rendezvous {
  private final long stepId;
  private final String localTask;
  private final Function<String, WorkerClient> peers;
  private final LocalRendezvous local = new LocalRendezvous();
  private final CancellationManager cancellation = new CancellationManager();
  /** RunGraph calls of this step running here, and peers' RecvTensor calls served from here not yet answered. */
  private final AtomicInteger runs = new AtomicInteger();
  private final AtomicInteger servedRecvs = new AtomicInteger();
  /** When this step last had no RunGraph running here (its creation, or the end of its last run). */
  private volatile long idleSince = System.nanoTime();
  private volatile boolean ranHere;
  /** The traced RunGraph's tracer, which also gets this step's RecvTensor calls (null: not traced, no cost). */
  private volatile StepTracer tracer;
  /** This task's pulls from peers not yet complete, and why the step was aborted (null while it runs). */
  private final Set<CompletableFuture<Tensor>> pulls = ConcurrentHashMap.newKeySet();
  private volatile StatusException aborted;
  /** Pulls from peers held until the next {@link #flush}, in the order their Recvs ran. Guarded by itself. */
  private final List<HeldPull> held = new ArrayList<>();

  private record HeldPull(String sender, String key, RecvCallback callback, long start) {}

  /** Whether pulls wait for {@link #flush} to go together; read per pull, so tests can switch it. */
  static volatile boolean batchPulls = batchPullsProperty();

  /** {@code -Dpsflow.batch_pulls}, true unless set to false. */
  static boolean batchPullsProperty() {
    return Boolean.parseBoolean(System.getProperty("psflow.batch_pulls", "true"));
  }

  StepRendezvous(long stepId, String localTask, Function<String, WorkerClient> peers) {
    this.stepId = stepId;
    this.localTask = localTask;
    this.peers = peers;
  }

  @Override
  public void send(String key, Tensor value) {
    local.send(key, value);
  }

  @Override
  public void recvAsync(String key, RecvCallback callback) {
    String sender = taskOf(RendezvousKeys.sendDevice(key));
    if (sender.equals(localTask)) {
      local.recvAsync(key, callback);
      return;
    }
    HeldPull pull = new HeldPull(sender, key, callback, tracer != null ? System.nanoTime() : 0);
    if (!batchPulls) {
      await(pull, peers.apply(sender).recvTensor(stepId, key));
      return;
    }
    StatusException why = aborted;
    if (why != null) {
      callback.done(null, why);
      return;
    }
    synchronized (held) {
      held.add(pull);
    }
  }

  /** Starts the held pulls: one call per peer for all of them that wait on it. */
  @Override
  public void flush() {
    List<HeldPull> batch;
    synchronized (held) {
      if (held.isEmpty()) {
        return;
      }
      batch = new ArrayList<>(held);
      held.clear();
    }
    Map<String, List<HeldPull>> bySender = new LinkedHashMap<>();
    for (HeldPull p : batch) {
      bySender.computeIfAbsent(p.sender(), x -> new ArrayList<>()).add(p);
    }
    bySender.forEach((sender, ofSender) -> {
      List<String> keys = ofSender.stream().map(HeldPull::key).toList();
      List<CompletableFuture<Tensor>> got;
      try {
        got = peers.apply(sender).recvTensors(stepId, keys);
      } catch (RuntimeException e) { // no such peer, a closed transport: these Recvs fail, not the executor's pass
        StatusException why = StatusException.from(e);
        ofSender.forEach(p -> p.callback().done(null, why));
        return;
      }
      for (int i = 0; i < ofSender.size(); i++) {
        await(ofSender.get(i), got.get(i));
      }
    });
  }

  private void await(HeldPull p, CompletableFuture<Tensor> pull) {
    StepTracer traced = tracer;
    pulls.add(pull);
    StatusException why = aborted;
    if (why != null) {
      pull.completeExceptionally(why); // aborted while the pull started: it goes too
    }
    pull.whenComplete((t, e) -> {
      pulls.remove(pull);
      if (traced != null && e == null) {
        traced.rpcDone("RecvTensor", StepStats.Side.CLIENT, p.sender(), p.key(), p.start(), System.nanoTime(), bytes(t));
      }
      if (e != null) {
        StatusException s = StatusException.from(e instanceof java.util.concurrent.CompletionException ? e.getCause() : e);
        p.callback().done(null, s);
      } else {
        p.callback().done(t, null);
      }
    });
  }

  /** Serves a peer's RecvTensor from the local table; counted in {@link #isIdle} until the callback runs. */
  void serveRecv(String key, RecvCallback callback) {
    long arrived = System.nanoTime(); // the RunGraph that traces this step may start only after the call came
    try {
      local.recvAsync(key, (t, e) -> {
        servedRecvs.decrementAndGet();
        StepTracer traced = tracer;
        if (traced != null && e == null) {
          traced.rpcDone("RecvTensor", StepStats.Side.SERVER, taskOf(RendezvousKeys.recvDevice(key)), key, arrived,
              System.nanoTime(), bytes(t));
        }
        callback.done(t, e);
      });
    } catch (StatusException e) {
      servedRecvs.decrementAndGet();
      throw new StatusException(Code.ALREADY_EXISTS, "a RecvTensor of " + key + " in step " + stepId
          + " is already waiting on " + localTask + " (each tensor is received once per step)", e);
    }
  }

  /** Called (under the step table's lock) before {@link #serveRecv}. */
  void recvComing() {
    servedRecvs.incrementAndGet();
  }

  /** Drops a served RecvTensor whose caller went away; true if it was still waiting. */
  boolean forgetRecv(String key) {
    if (local.forgetRecv(key)) {
      servedRecvs.decrementAndGet();
      return true;
    }
    return false;
  }

  @Override
  public void abort(StatusException why) {
    aborted = why;
    local.abort(why);
    List<HeldPull> dropped;
    synchronized (held) {
      dropped = new ArrayList<>(held);
      held.clear();
    }
    dropped.forEach(p -> p.callback().done(null, why));
    // pulls from peers still waiting or streaming in: completing them cancels their calls, so the peers stop sending
    pulls.forEach(p -> p.completeExceptionally(why));
  }

  CancellationManager cancellation() {
    return cancellation;
  }

  /** Reports this step's RecvTensor calls, made and served here, to {@code t} (a traced RunGraph's). */
  void trace(StepTracer t) {
    tracer = t;
  }

  private static long bytes(Tensor t) {
    return (long) t.size() * Math.max(1, t.dtype().byteSize());
  }

  /** Called (under the step table's lock) when a RunGraph of this step starts here. */
  void runStarted() {
    runs.incrementAndGet();
    ranHere = true;
  }

  void runDone() {
    if (runs.decrementAndGet() == 0) {
      idleSince = System.nanoTime();
    }
  }

  /** True when nothing of the step is left here: no run, no waiting RecvTensor, no tensor sent and not taken. */
  boolean isIdle() {
    return runs.get() == 0 && servedRecvs.get() == 0 && local.pendingSends() == 0;
  }

  /**
   * Why the step counts as abandoned at {@code now}, or null: no RunGraph of it has run here for
   * {@code boundNanos}, yet peers wait on it or it holds tensors no one took.
   */
  String abandonment(long now, long boundNanos) {
    if (runs.get() > 0 || now - idleSince <= boundNanos) {
      return null;
    }
    long ms = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(boundNanos);
    String bound = ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    return ranHere
        ? "the tensors it sent on " + localTask + " were not all taken within " + bound + " of its end"
        : "RecvTensor calls waited on " + localTask + " for " + bound + ", but no RunGraph of the step came";
  }

  /** {@code /job:ps/replica:0/task:0/device:CPU:0} → {@code /job:ps/replica:0/task:0}. */
  static String taskOf(String device) {
    int i = device.indexOf("/device:");
    return i < 0 ? device : device.substring(0, i);
  }
}
