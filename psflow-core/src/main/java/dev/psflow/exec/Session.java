package dev.psflow.exec;

import dev.psflow.graph.Graph;
import java.util.ServiceLoader;

/**
 * Runs a graph: in this process (target "" or "local") or on a cluster through a server's master
 * (target "grpc://host:port", when psflow-runtime is on the class path). Must be closed; safe to
 * use from several threads at once (each run is one step).
 *
 * <pre>{@code
 * try (Session s = Session.open(graph)) {
 *   s.runner().addTarget(init).run();
 *   Tensor y = s.runner().feed(x, batch).fetch(logits).run().get(0);
 * }
 * }</pre>
 */
public interface Session extends AutoCloseable {
  /** An in-process session. */
  static Session open(Graph graph) {
    return open(graph, "", SessionOptions.DEFAULTS);
  }

  static Session open(Graph graph, String target) {
    return open(graph, target, SessionOptions.DEFAULTS);
  }

  /** A session for {@code target}; IllegalArgumentException naming the target when none accepts it. */
  static Session open(Graph graph, String target, SessionOptions options) {
    for (SessionFactory f : ServiceLoader.load(SessionFactory.class)) {
      if (f.accepts(target)) {
        return f.open(graph, target, options);
      }
    }
    throw new IllegalArgumentException("no session can reach target '" + target
        + "': use \"\" (in-process) or grpc://host:port (needs psflow-runtime on the class path)");
  }

  /** Starts describing one run: feeds, fetches, targets. */
  default Runner runner() {
    return new Runner(this);
  }

  /**
   * Runs one step; returns the fetched tensors in order. Throws StatusException with the code and
   * message of the first failure (an unfed placeholder, an uninitialized variable, a remote error).
   */
  java.util.List<dev.psflow.tensor.Tensor> run(RunRequest request);

  /**
   * Runs one step as {@link #run}, and returns its {@link RunMetadata} too: with a trace level in
   * the request's options, every op's time and output bytes on every task that ran part of it.
   */
  Run runWithMetadata(RunRequest request);

  /** The fetches of one run and what it reports (TensorFlow Java's {@code Session.Run}). */
  record Run(java.util.List<dev.psflow.tensor.Tensor> outputs, RunMetadata metadata) {}

  /** The graph this session runs. */
  Graph graph();

  @Override
  void close();
}
