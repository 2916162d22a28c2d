package dev.psflow.exec;

import dev.psflow.graph.Operation;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A {@link StepTracer} that keeps every op's run of one step on one device, for {@link StepStats}.
 * Thread-safe: kernels of a step finish on several threads.
 */
public final class StepStatsCollector implements StepTracer {
  // nanoTime gives durations; this pair turns it into wall-clock time so tasks' stats line up
  private final long wallMicrosAtStart = System.currentTimeMillis() * 1000;
  private final long nanosAtStart = System.nanoTime();
  private final String device;
  private final ConcurrentLinkedQueue<StepStats.NodeExecStats> nodes = new ConcurrentLinkedQueue<>();

  public StepStatsCollector(String device) {
    this.device = device;
  }

  @Override
  public void opDone(Operation op, long startNanos, long endNanos) {
    opDone(op, startNanos, endNanos, 0);
  }

  @Override
  public void opDone(Operation op, long startNanos, long endNanos, long outputBytes) {
    nodes.add(new StepStats.NodeExecStats(op.name(), op.type(), wallMicrosAtStart + (startNanos - nanosAtStart) / 1000,
        (endNanos - startNanos) / 1000, outputBytes));
  }

  public StepStats.DeviceStepStats stats() {
    return new StepStats.DeviceStepStats(device, java.util.List.copyOf(nodes));
  }
}
