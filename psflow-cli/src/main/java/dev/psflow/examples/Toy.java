package dev.psflow.examples;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.Tensor;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The parameter-placement example: {@code w} and {@code b} (2×2, filled with 2 and 5) live on
 * /job:ps/task:0; {@code w+b} runs on worker 0, {@code w*b} on worker 1 and {@code w/b} on worker 2.
 * Worker 0 is the client: it initializes, runs the three ops and prints their values, then marks
 * the run done; the other workers serve until then.
 */
public final class Toy {
  /** The toy's graph and the tensors one step fetches. */
  public record ToyGraph(Graph graph, Variable w, Variable b, Output add, Output mul, Output div, Variable done,
      Operation init, Operation markDone) {}

  private Toy() {}

  public static ToyGraph buildGraph(int numWorkers) {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Ops ps = tf.withDevice("/job:ps/task:0");
    Variable w = ps.variable("w", ps.fill(ps.constant(new int[] {2, 2}), ps.constant(2f)));
    Variable b = ps.variable("b", ps.fill(ps.constant(new int[] {2, 2}), ps.constant(5f)));
    Output add = tf.withDevice("/job:worker/task:0/cpu:0").withName("addwb").add(w, b);
    Output mul = tf.withDevice("/job:worker/task:" + Math.min(1, numWorkers - 1) + "/cpu:0").withName("mutwb").mul(w, b);
    Output div = tf.withDevice("/job:worker/task:" + Math.min(2, numWorkers - 1) + "/cpu:0").withName("divwb").div(w, b);
    Variable done = ps.variable("toy_done", Tensor.scalar(false), false);
    Operation init = tf.variablesInitializer(List.of(w, b));
    Operation markDone = tf.assign(done, tf.constant(Tensor.scalar(true)));
    return new ToyGraph(g, w, b, add, mul, div, done, init, markDone);
  }

  /** Runs one task of the toy cluster. */
  public static void run(ClusterSpec cluster, String job, int task, TaskSecurity security, PrintStream out)
      throws InterruptedException {
    run(cluster, job, task, security, ServerOptions.DEFAULTS, out);
  }

  /** As {@link #run(ClusterSpec, String, int, TaskSecurity, PrintStream)}, on top of {@code serverOptions}' limits. */
  public static void run(ClusterSpec cluster, String job, int task, TaskSecurity security, ServerOptions serverOptions,
      PrintStream out) throws InterruptedException {
    Server server = Server.create(cluster, job, task, security.serverOptions(serverOptions, cluster, job, task, null));
    if (job.equals("ps")) {
      server.join();
      return;
    }
    ToyGraph t = buildGraph(cluster.numTasks("worker"));
    try (Session s = Session.open(t.graph(), server.target())) {
      if (task == 0) {
        s.runner().addTarget(t.init()).run();
        List<Tensor> r = s.runner().fetch(t.add()).fetch(t.mul()).fetch(t.div()).run();
        out.println("w + b = " + format(r.get(0)));
        out.println("w * b = " + format(r.get(1)));
        out.println("w / b = " + format(r.get(2)));
        s.runner().addTarget(t.markDone()).run();
      } else {
        waitUntilDone(s, t, out, task);
      }
    } finally {
      server.stop();
    }
  }

  private static void waitUntilDone(Session s, ToyGraph t, PrintStream out, int task) throws InterruptedException {
    Output isInit = Ops.create(t.graph()).isVariableInitialized(t.done());
    out.println("Worker " + task + ": serving until the client is done");
    while (true) {
      boolean ready = s.runner().fetch(isInit).run().get(0).boolData()[0];
      if (ready && s.runner().fetch(t.done()).run().get(0).boolData()[0]) {
        return;
      }
      Thread.sleep(100);
    }
  }

  /** numpy-like and compact: {@code [[7,7],[7,7]]}, {@code 0.4}. */
  public static String format(Tensor t) {
    StringBuilder sb = new StringBuilder();
    append(sb, t, t.shape().toIntArray(), 0, 0);
    return sb.toString();
  }

  private static void append(StringBuilder sb, Tensor t, int[] dims, int axis, int offset) {
    if (axis == dims.length) {
      sb.append(String.format(Locale.ROOT, "%g", t.getDouble(offset)).replaceAll("\\.?0+(e|$)", "$1"));
      return;
    }
    int stride = 1;
    for (int i = axis + 1; i < dims.length; i++) {
      stride *= dims[i];
    }
    sb.append('[');
    for (int i = 0; i < dims[axis]; i++) {
      sb.append(i > 0 ? "," : "");
      append(sb, t, dims, axis + 1, offset + i * stride);
    }
    sb.append(']');
  }
}
