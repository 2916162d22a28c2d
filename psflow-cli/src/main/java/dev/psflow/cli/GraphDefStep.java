package dev.psflow.cli;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.distributed.Explanation;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.DeviceSpec;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefFiles;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.OpRegistry;
import dev.psflow.tensor.Shape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The step {@code psflow explain --graph_def=FILE} explains: the file's graph, its feeds (with the
 * shapes fed), fetches and targets by name; without targets or fetches, every op nothing consumes.
 * Without a cluster, one is laid out from the jobs and task indices the graph's devices name (the
 * addresses only title the output, nothing is contacted).
 */
final class GraphDefStep {
  private GraphDefStep() {}

  static Explanation.Step read(Path file, ClusterSpec cluster, String clientTask, List<String> feeds,
      List<String> fetches, List<String> targets) {
    Graph g = new Graph();
    GraphDefs.importInto(g, GraphDefFiles.read(file), OpRegistry.core());
    DeviceSpec client = DeviceSpec.parse(clientTask);
    if (client.job() == null || client.task() == null) {
      throw new UserErrors.UsageException("--client_task=" + clientTask + " is not a task like /job:worker/task:0");
    }
    ClusterSpec c = cluster != null ? cluster : clusterOf(g, client);
    List<Output> fed = new ArrayList<>();
    List<Shape> shapes = new ArrayList<>();
    for (String f : feeds) {
      int eq = f.indexOf('=');
      if (eq < 0) {
        throw new UserErrors.UsageException("--feed=" + f + " needs the shape fed: NAME=D0,D1,...");
      }
      fed.add(tensor(g, f.substring(0, eq), "--feed"));
      shapes.add(shape(f.substring(eq + 1), f));
    }
    List<Output> fetched = fetches.stream().map(n -> tensor(g, n, "--fetch")).toList();
    List<Operation> run = new ArrayList<>();
    for (String t : targets) {
      Operation op = g.operation(t);
      if (op == null) {
        throw new UserErrors.UsageException("--target=" + t + ": " + file + " has no op named '" + t + "'");
      }
      run.add(op);
    }
    if (run.isEmpty() && fetched.isEmpty()) {
      run.addAll(sinks(g));
    }
    return new Explanation.Step(file.getFileName().toString(), g, c, ClusterSpec.taskName(client.job(), client.task()),
        SessionOptions.DEFAULTS, fed, shapes, fetched, run);
  }

  private static Output tensor(Graph g, String name, String flag) {
    try {
      return g.output(name);
    } catch (IllegalArgumentException e) {
      throw new UserErrors.UsageException(flag + "=" + name + ": " + e.getMessage());
    }
  }

  private static Shape shape(String dims, String flag) {
    try {
      String[] parts = dims.isBlank() ? new String[0] : dims.split(",");
      long[] d = new long[parts.length];
      for (int i = 0; i < parts.length; i++) {
        d[i] = Long.parseLong(parts[i].trim());
      }
      return Shape.of(d);
    } catch (NumberFormatException e) {
      throw new UserErrors.UsageException("--feed=" + flag + ": the shape must be integers separated by commas");
    }
  }

  /** Ops whose outputs nothing reads and that nothing waits for: what a whole-graph step runs. */
  private static List<Operation> sinks(Graph g) {
    Set<Operation> used = new HashSet<>();
    for (Operation op : g.operations()) {
      op.inputs().forEach(in -> used.add(in.op()));
      used.addAll(op.controlInputs());
    }
    return g.operations().stream().filter(op -> !used.contains(op)).toList();
  }

  private static ClusterSpec clusterOf(Graph g, DeviceSpec client) {
    Map<String, Integer> tasks = new TreeMap<>();
    tasks.merge(client.job(), client.task() + 1, Math::max);
    for (Operation op : g.operations()) {
      DeviceSpec d = DeviceSpec.parse(op.device());
      if (d.job() != null) {
        tasks.merge(d.job(), (d.task() == null ? 0 : d.task()) + 1, Math::max);
      }
    }
    Map<String, List<String>> jobs = new LinkedHashMap<>();
    int port = 2222;
    for (Map.Entry<String, Integer> e : tasks.entrySet()) {
      List<String> addresses = new ArrayList<>();
      for (int i = 0; i < e.getValue(); i++) {
        addresses.add("localhost:" + port++);
      }
      jobs.put(e.getKey(), addresses);
    }
    return ClusterSpec.of(jobs);
  }
}
