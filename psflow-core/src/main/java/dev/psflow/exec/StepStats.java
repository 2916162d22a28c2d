package dev.psflow.exec;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The statistics of one traced step, as TensorFlow's {@code StepStats}: for each device (one per
 * task), every op that ran, when it started, how long it took and how many bytes it produced — a
 * {@code _Recv}'s bytes are those that crossed the wire to it — and the RPCs the task made or served
 * for the step (RunGraph, RecvTensor). {@link Timeline} turns a run's steps into a Chrome trace.
 *
 * @param stepId the runtime's id of the step (the one RunGraph and RecvTensor carry; 0 when unknown)
 * @param devStats one entry per device that ran part of the step
 */
public record StepStats(long stepId, List<DeviceStepStats> devStats) {
  public static final StepStats EMPTY = new StepStats(0, List.of());

  public StepStats {
    devStats = List.copyOf(devStats);
  }

  public StepStats(List<DeviceStepStats> devStats) {
    this(0, devStats);
  }

  /**
   * One op's run. {@code allStartMicros} is wall-clock time (µs since the epoch, see
   * {@link WallClock}), so ops of different tasks on one machine line up; {@code opEndRelMicros} is
   * its duration.
   */
  public record NodeExecStats(String nodeName, String opType, long allStartMicros, long opEndRelMicros,
      long outputBytes) {}

  /** Which end of an RPC a task was. */
  public enum Side { CLIENT, SERVER }

  /**
   * One RPC of the step as one task saw it. A client's span runs from the call to its answer; a
   * server's RecvTensor span runs from the request's arrival to the moment the tensor was there to
   * send (the wait: the rest of the client's span is the transfer).
   *
   * @param method the RPC, TensorFlow's name ("RunGraph", "RecvTensor")
   * @param peer the other task ({@code /job:ps/replica:0/task:0})
   * @param detail what it was about: the rendezvous key of a RecvTensor, the graph of a RunGraph
   * @param startMicros wall clock, µs since the epoch
   * @param bytes the tensor bytes it carried back (0 when none or unknown)
   */
  public record RpcStats(String method, Side side, String peer, String detail, long startMicros, long durationMicros,
      long bytes) {}

  /** The ops one device ran in the step, in the order they finished, and the RPCs of its task. */
  public record DeviceStepStats(String device, List<NodeExecStats> nodeStats, List<RpcStats> rpcStats) {
    public DeviceStepStats {
      nodeStats = List.copyOf(nodeStats);
      rpcStats = List.copyOf(rpcStats);
    }

    public DeviceStepStats(String device, List<NodeExecStats> nodeStats) {
      this(device, nodeStats, List.of());
    }
  }

  /** The device's stats, or null when it ran nothing of the step. */
  public DeviceStepStats device(String name) {
    return devStats.stream().filter(d -> d.device().equals(name)).findFirst().orElse(null);
  }

  /** One line per op, grouped by device, the slowest first: what a person reads. */
  public void print(PrintStream out) {
    for (DeviceStepStats d : devStats) {
      long total = d.nodeStats().stream().mapToLong(NodeExecStats::opEndRelMicros).sum();
      long bytes = d.nodeStats().stream().mapToLong(NodeExecStats::outputBytes).sum();
      out.printf(Locale.ROOT, "%s — %d ops, %,d µs in kernels, %,d bytes produced%n", d.device(), d.nodeStats().size(),
          total, bytes);
      List<NodeExecStats> slowest = new ArrayList<>(d.nodeStats());
      slowest.sort(Comparator.comparingLong(NodeExecStats::opEndRelMicros).reversed());
      for (NodeExecStats n : slowest) {
        out.printf(Locale.ROOT, "  %-44s %-26s %,9d µs %,12d bytes%n", n.nodeName(), n.opType(), n.opEndRelMicros(),
            n.outputBytes());
      }
    }
  }
}
