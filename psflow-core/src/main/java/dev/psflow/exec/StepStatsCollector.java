package dev.psflow.exec;

import dev.psflow.graph.Operation;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A {@link StepTracer} that keeps every op's run and every RPC of one step on one device, for
 * {@link StepStats}. Thread-safe: kernels of a step finish on several threads.
 */
public final class StepStatsCollector implements StepTracer {
  private final String device;
  private final ConcurrentLinkedQueue<StepStats.NodeExecStats> nodes = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<StepStats.RpcStats> rpcs = new ConcurrentLinkedQueue<>();

  public StepStatsCollector(String device) {
    this.device = device;
  }

  @Override
  public void opDone(Operation op, long startNanos, long endNanos) {
    opDone(op, startNanos, endNanos, 0);
  }

  @Override
  public void opDone(Operation op, long startNanos, long endNanos, long outputBytes) {
    nodes.add(new StepStats.NodeExecStats(op.name(), op.type(), WallClock.micros(startNanos),
        (endNanos - startNanos) / 1000, outputBytes));
  }

  @Override
  public void rpcDone(String method, StepStats.Side side, String peer, String detail, long startNanos, long endNanos,
      long bytes) {
    rpcs.add(new StepStats.RpcStats(method, side, peer, detail, WallClock.micros(startNanos),
        (endNanos - startNanos) / 1000, bytes));
  }

  /** What was collected so far (later reports are not in it). */
  public StepStats.DeviceStepStats stats() {
    return new StepStats.DeviceStepStats(device, List.copyOf(nodes), List.copyOf(rpcs));
  }
}
