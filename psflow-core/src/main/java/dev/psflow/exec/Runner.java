package dev.psflow.exec;

import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * Describes one run of a {@link Session}, TensorFlow-Java style. Not thread-safe: build one per
 * run (it is cheap), or keep one and call {@link #run()} repeatedly from one thread.
 *
 * <pre>{@code
 * List<Tensor> out = session.runner().feed("x", images).feed(y_, labels)
 *     .fetch(loss).addTarget(trainOp).run();
 * }</pre>
 */
public final class Runner {
  private final Session session;
  private final List<Output> feeds = new ArrayList<>();
  private final List<Tensor> feedValues = new ArrayList<>();
  private final List<Output> fetches = new ArrayList<>();
  private final List<Operation> targets = new ArrayList<>();
  private RunOptions options = RunOptions.DEFAULTS;

  Runner(Session session) {
    this.session = session;
  }

  /** Feeds {@code value} to the tensor named {@code name} ("op" or "op:index"). */
  public Runner feed(String name, Tensor value) {
    return feed(session.graph().output(name), value);
  }

  public Runner feed(Operand tensor, Tensor value) {
    if (value == null) {
      throw new IllegalArgumentException("null value fed to " + tensor.asOutput().name());
    }
    feeds.add(tensor.asOutput());
    feedValues.add(value);
    return this;
  }

  /** Fetches the tensor named {@code name} ("op" or "op:index"). */
  public Runner fetch(String name) {
    return fetch(session.graph().output(name));
  }

  public Runner fetch(Operand tensor) {
    fetches.add(tensor.asOutput());
    return this;
  }

  /** Runs the op named {@code name} for its effect. */
  public Runner addTarget(String name) {
    return addTarget(session.graph().requireOperation(name));
  }

  public Runner addTarget(Operand op) {
    targets.add(op.op());
    return this;
  }

  /** A deadline for this run; DEADLINE_EXCEEDED past it. */
  public Runner setTimeoutMillis(long millis) {
    this.options = options.withTimeoutMillis(millis);
    return this;
  }

  /** The run's options: trace level and deadline (TensorFlow's {@code RunOptions}). */
  public Runner setOptions(RunOptions o) {
    this.options = o;
    return this;
  }

  public List<Tensor> run() {
    return session.run(request());
  }

  /** Runs, and returns the fetches with the step's {@link RunMetadata} (statistics when traced). */
  public Session.Run runAndFetchMetadata() {
    return session.runWithMetadata(request());
  }

  private RunRequest request() {
    return new RunRequest(feeds, feedValues, fetches, targets, options);
  }
}
