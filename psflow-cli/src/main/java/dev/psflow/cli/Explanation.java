package dev.psflow.cli;

import dev.psflow.exec.Partition;
import dev.psflow.exec.Partitioner;
import dev.psflow.exec.Placer;
import dev.psflow.exec.Pruner;
import dev.psflow.graph.DeviceSpec;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.tensor.Shape;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Places and partitions one step exactly as a master would, and prints what each task runs and
 * every tensor that crosses between tasks per step, with its size: those pulled with RecvTensor,
 * and the client's feeds that the master sends to another task in its RunGraph request (in-graph
 * replication feeds each tower's batch to its worker). Starts nothing.
 */
final class Explanation {
  /** A tensor that crosses between tasks each step. */
  record Crossing(String tensor, Shape shape, long bytes, String from, String to) {}

  private final StepToExplain step;
  private final List<Partition> partitions;
  private final List<Crossing> crossings = new ArrayList<>();
  private final List<Crossing> fedToOtherTasks = new ArrayList<>();

  private Explanation(StepToExplain step, List<Partition> partitions) {
    this.step = step;
    this.partitions = partitions;
    String client = task(step.clientTask());
    for (Partition p : partitions) {
      if (!task(p.device()).equals(client)) {
        for (int i : p.feedIndex()) {
          Output f = step.feeds().get(i);
          Shape shape = step.feedShapes().get(i);
          fedToOtherTasks.add(new Crossing(f.name(), shape, bytes(shape, f), client, task(p.device())));
        }
      }
      for (Operation op : p.graph().operations()) {
        if (op.type().equals("_Send")) {
          Output t = op.input(0);
          crossings.add(new Crossing(op.attrString("tensor_name"), t.shape(), bytes(t.shape(), t), task(op.attrString("send_device")),
              task(op.attrString("recv_device"))));
        }
      }
    }
  }

  static Explanation of(StepToExplain s) {
    List<String> devices = new ArrayList<>();
    for (String d : s.cluster().cpuDevices()) {
      DeviceSpec spec = DeviceSpec.parse(d);
      if (s.options().deviceFilters().isEmpty()
          || s.options().deviceFilters().stream().anyMatch(f -> DeviceSpec.parse(f).matches(spec))) {
        devices.add(d);
      }
    }
    List<Operation> roots = new ArrayList<>(s.targets());
    s.fetches().forEach(f -> roots.add(f.op()));
    List<Operation> ops = Pruner.prune(roots, new HashSet<>(s.feeds()));
    Map<Operation, String> placement = Placer.place(ops, devices, s.clientTask() + "/device:CPU:0",
        s.options().allowSoftPlacement());
    return new Explanation(s, Partitioner.partition(ops, placement, s.feeds(), s.fetches(), s.targets()));
  }

  /** One placed and partitioned graph per device, as the master would register them. */
  List<Partition> partitions() {
    return partitions;
  }

  List<Crossing> crossings() {
    return crossings;
  }

  /** The fed tensors the master sends to a task other than the client's, each step. */
  List<Crossing> fedToOtherTasks() {
    return fedToOtherTasks;
  }

  void print(PrintStream out) {
    out.printf("One step of %s, as run by %s's client%n", step.program(), step.clientTask());
    for (int i = 0; i < step.feeds().size(); i++) {
      out.printf("  feeds   %s %s%n", step.feeds().get(i).name(), step.feedShapes().get(i));
    }
    step.fetches().forEach(f -> out.printf("  fetches %s%n", f.name()));
    step.targets().forEach(t -> out.printf("  runs    %s (%s)%n", t.name(), t.type()));
    out.println();
    for (Partition p : partitions) {
      printPartition(out, p);
    }
    printCrossings(out);
  }

  private void printPartition(PrintStream out, Partition p) {
    List<Operation> ops = p.graph().operations().stream()
        .filter(o -> !o.type().equals("_Send") && !o.type().equals("_Recv") && !o.name().startsWith("_feed_"))
        .toList();
    out.printf("%s — %d ops%n", task(p.device()), ops.size());
    Map<String, List<String>> byType = new TreeMap<>();
    for (Operation op : ops) {
      byType.computeIfAbsent(op.type(), k -> new ArrayList<>()).add(op.name());
    }
    byType.forEach((type, names) -> out.printf("  %-34s %s%n", type + " ×" + names.size(), String.join(", ", names)));
    out.println();
  }

  private void printCrossings(PrintStream out) {
    out.println("Tensors crossing between tasks each step (pulled by the receiver with RecvTensor):");
    out.printf("  %-52s %-11s %11s  %s%n", "tensor", "shape", "bytes", "from -> to");
    Map<String, Long> totals = new TreeMap<>();
    printTable(out, crossings, totals);
    if (!fedToOtherTasks.isEmpty()) {
      out.println();
      out.println("Fed by the client, sent in the RunGraph request of the task that uses them:");
      printTable(out, fedToOtherTasks, totals);
    }
    out.println();
    out.println("Bytes per step:");
    totals.forEach((dir, b) -> out.printf(Locale.ROOT, "  %-20s %,d%n", dir, b));
    out.printf(Locale.ROOT, "  %-20s %,d%n", "total", totals.values().stream().mapToLong(Long::longValue).sum());
  }

  private static void printTable(PrintStream out, List<Crossing> rows, Map<String, Long> totals) {
    for (Crossing c : rows) {
      String bytes = c.bytes() < 0 ? "?" : String.format(Locale.ROOT, "%,d", c.bytes());
      out.printf(Locale.ROOT, "  %-52s %-11s %11s  %s -> %s%n", c.tensor(), c.shape(), bytes, c.from(), c.to());
      totals.merge(job(c.from()) + " -> " + job(c.to()), Math.max(0, c.bytes()), Long::sum);
    }
  }

  private static long bytes(Shape s, Output t) {
    if (!s.isFullyDefined()) {
      return -1;
    }
    return s.numElements() * Math.max(1, t.dtype().byteSize());
  }

  /** {@code /job:ps/replica:0/task:0/device:CPU:0} → {@code /job:ps/task:0}. */
  static String task(String device) {
    DeviceSpec d = DeviceSpec.parse(device);
    return "/job:" + d.job() + "/task:" + d.task();
  }

  private static String job(String task) {
    return DeviceSpec.parse(task).job();
  }
}
