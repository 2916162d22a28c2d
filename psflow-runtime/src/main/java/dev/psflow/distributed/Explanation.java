package dev.psflow.distributed;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.exec.Partition;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.DeviceSpec;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.tensor.Shape;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one step of any program does on a cluster, without starting anything: the step is pruned,
 * placed and partitioned by the same code a master runs ({@link StepPlan#partition}), then each
 * task's ops and every tensor that crosses between tasks per step are listed with their sizes —
 * those pulled with RecvTensor, and the client's feeds that the master sends in another task's
 * RunGraph request. Immutable; {@link #print} writes what {@code psflow explain} shows.
 *
 * <pre>{@code
 * Explanation e = Explanation.of(graph, cluster, "/job:worker/task:0", List.of(loss), List.of(trainOp));
 * e.print(System.out);
 * long bytes = e.bytesPerStep();
 * }</pre>
 */
public final class Explanation {
  /** A tensor that crosses between tasks each step ({@code bytes} is -1 when its shape is not known). */
  public record Crossing(String tensor, Shape shape, long bytes, String from, String to) {}

  /**
   * One step to explain: the graph, the client's task, what the step feeds (with the shapes fed),
   * fetches and runs, the session options and the cluster; {@code program} titles the output.
   */
  public record Step(String program, Graph graph, ClusterSpec cluster, String clientTask, SessionOptions options,
      List<Output> feeds, List<Shape> feedShapes, List<Output> fetches, List<Operation> targets) {
    public Step {
      if (feeds.size() != feedShapes.size()) {
        throw new IllegalArgumentException(feeds.size() + " feeds but " + feedShapes.size() + " feed shapes");
      }
      feeds = List.copyOf(feeds);
      feedShapes = List.copyOf(feedShapes);
      fetches = List.copyOf(fetches);
      targets = List.copyOf(targets);
    }

    /** A step that feeds nothing, with the default session options. */
    public static Step of(Graph graph, ClusterSpec cluster, String clientTask, List<Output> fetches,
        List<Operation> targets) {
      return new Step("the graph", graph, cluster, clientTask, SessionOptions.DEFAULTS, List.of(), List.of(), fetches,
          targets);
    }

    public Step withFeeds(List<Output> tensors, List<Shape> shapes) {
      return new Step(program, graph, cluster, clientTask, options, tensors, shapes, fetches, targets);
    }

    public Step withOptions(SessionOptions o) {
      return new Step(program, graph, cluster, clientTask, o, feeds, feedShapes, fetches, targets);
    }

    public Step named(String name) {
      return new Step(name, graph, cluster, clientTask, options, feeds, feedShapes, fetches, targets);
    }
  }

  private final Step step;
  private final List<Partition> partitions;
  private final List<Crossing> crossings = new ArrayList<>();
  private final List<Crossing> fedToOtherTasks = new ArrayList<>();

  private Explanation(Step step, List<Partition> partitions) {
    this.step = step;
    this.partitions = List.copyOf(partitions);
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
          crossings.add(new Crossing(op.attrString("tensor_name"), t.shape(), bytes(t.shape(), t),
              task(op.attrString("send_device")), task(op.attrString("recv_device"))));
        }
      }
    }
  }

  /** Explains a step that fetches {@code fetches} and runs {@code targets}, its client on {@code clientTask}. */
  public static Explanation of(Graph graph, ClusterSpec cluster, String clientTask, List<Output> fetches,
      List<Operation> targets) {
    return of(Step.of(graph, cluster, clientTask, fetches, targets));
  }

  public static Explanation of(Step s) {
    List<String> devices = DeviceFilters.apply(s.cluster().cpuDevices(), s.options().deviceFilters());
    return new Explanation(s, StepPlan.partition(s.feeds(), s.fetches(), s.targets(), devices,
        s.clientTask() + "/device:CPU:0", s.options()));
  }

  public Step step() {
    return step;
  }

  /** One placed and partitioned graph per device, as the master would register them. */
  public List<Partition> partitions() {
    return partitions;
  }

  /** The tensors pulled between tasks each step (one per Send/Recv pair). */
  public List<Crossing> crossings() {
    return List.copyOf(crossings);
  }

  /** The fed tensors the master sends to a task other than the client's, each step. */
  public List<Crossing> fedToOtherTasks() {
    return List.copyOf(fedToOtherTasks);
  }

  /** Bytes of tensor payload crossing between tasks per step (tensors of unknown shape count 0). */
  public long bytesPerStep() {
    long sum = 0;
    for (Crossing c : crossings) {
      sum += Math.max(0, c.bytes());
    }
    for (Crossing c : fedToOtherTasks) {
      sum += Math.max(0, c.bytes());
    }
    return sum;
  }

  public void print(PrintStream out) {
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
    printVariableBytes(out);
    printCrossings(out);
  }

  /** Bytes of the variables each task holds (the VarHandleOps the step reaches there, optimizer slots included). */
  public Map<String, Long> variableBytesPerTask() {
    Map<String, Long> bytes = new TreeMap<>();
    for (Partition p : partitions) {
      for (Operation op : p.graph().operations()) {
        if (op.type().equals("VarHandleOp") && op.hasAttr("shape") && op.hasAttr("dtype")) {
          Shape s = op.attrShape("shape");
          long b = s.isFullyDefined() ? s.numElements() * Math.max(1, op.attrType("dtype").byteSize()) : 0;
          bytes.merge(task(p.device()), b, Long::sum);
        }
      }
    }
    return bytes;
  }

  private void printVariableBytes(PrintStream out) {
    Map<String, Long> bytes = variableBytesPerTask();
    if (bytes.isEmpty()) {
      return;
    }
    out.println("Variables held per task (bytes, optimizer slots included):");
    bytes.forEach((task, b) -> out.printf(Locale.ROOT, "  %-20s %,d%n", task, b));
    out.println();
  }

  private static void printPartition(PrintStream out, Partition p) {
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
  public static String task(String device) {
    DeviceSpec d = DeviceSpec.parse(device);
    return "/job:" + d.job() + "/task:" + d.task();
  }

  private static String job(String task) {
    return DeviceSpec.parse(task).job();
  }
}
