package dev.psflow.exec;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The statistics of one traced step, as TensorFlow's {@code StepStats}: for each device (one per
 * task), every op that ran, when it started, how long it took and how many bytes it produced — a
 * {@code _Recv}'s bytes are those that crossed the wire to it.
 *
 * @param devStats one entry per device that ran part of the step
 */
public record StepStats(List<DeviceStepStats> devStats) {
  public static final StepStats EMPTY = new StepStats(List.of());

  public StepStats {
    devStats = List.copyOf(devStats);
  }

  /**
   * One op's run. {@code allStartMicros} is wall-clock time (µs since the epoch), so ops of
   * different tasks on one machine line up; {@code opEndRelMicros} is its duration.
   */
  public record NodeExecStats(String nodeName, String opType, long allStartMicros, long opEndRelMicros,
      long outputBytes) {}

  /** The ops one device ran in the step, in the order they finished. */
  public record DeviceStepStats(String device, List<NodeExecStats> nodeStats) {
    public DeviceStepStats {
      nodeStats = List.copyOf(nodeStats);
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
