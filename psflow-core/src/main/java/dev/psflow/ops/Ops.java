package dev.psflow.ops;

import dev.psflow.graph.DeviceFunction;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Scope;
import dev.psflow.ops.array.ArrayOps;
import dev.psflow.ops.core.CoreOps;
import dev.psflow.ops.io.IoOps;
import dev.psflow.ops.math.MathOps;
import dev.psflow.ops.nn.NnOps;
import dev.psflow.ops.queue.QueueOps;
import dev.psflow.ops.random.RandomOps;
import dev.psflow.ops.state.StateOps;
import dev.psflow.ops.training.TrainingOps;
import java.util.Arrays;

/**
 * The fluent facade users build graphs with: {@code tf.matMul(a, b)}, {@code tf.relu(x)},
 * {@code tf.variable("hid_w", init)}. Each op family contributes its methods through an interface
 * ({@link MathOps}, {@link NnOps}, {@link ArrayOps}, {@link StateOps}, {@link RandomOps},
 * {@link CoreOps}) whose default methods call the op's own builder, so this class only holds the
 * {@link Scope}. Immutable and thread-safe; {@code with*} methods return a new facade.
 *
 * <pre>{@code
 * Ops tf = Ops.create(graph);
 * Output x = tf.placeholder(DType.FLOAT32, Shape.of(-1, 784));
 * Output h = tf.withSubScope("hidden").relu(tf.matMul(x, w));
 * Ops ps = tf.withDevice("/job:ps/task:0");
 * }</pre>
 */
public final class Ops implements CoreOps, MathOps, NnOps, ArrayOps, StateOps, RandomOps, TrainingOps, IoOps,
    QueueOps {
  private final Scope scope;

  private Ops(Scope scope) {
    this.scope = scope;
  }

  public static Ops create(Graph graph) {
    return new Ops(Scope.root(graph));
  }

  public static Ops create(Scope scope) {
    return new Ops(scope);
  }

  @Override
  public Scope scope() {
    return scope;
  }

  /**
   * The facade for the ops a method builds besides the one it returns (constants for axes and
   * shapes, the parts of a composite): this facade, or after {@link #withName} one that builds under
   * that name ({@code loss/Const}), so that the name goes to the op the method returns.
   */
  @Override
  public Ops tf() {
    return scope.hasName() ? new Ops(scope.helperScope()) : this;
  }

  public Graph graph() {
    return scope.graph();
  }

  /**
   * The op the next method returns is named {@code name}; ops it builds besides go under
   * {@code name/}, as in TensorFlow: {@code tf.withName("loss").reduceMean(x)} makes
   * {@code loss/Const} (the axes) and {@code loss} (the mean), so {@code "loss:0"} is the mean.
   */
  public Ops withName(String name) {
    return new Ops(scope.withName(name));
  }

  /** Ops built through the result are named {@code name/...}. */
  public Ops withSubScope(String name) {
    return new Ops(scope.withSubScope(name));
  }

  /** Ops built through the result request {@code device}, e.g. {@code "/job:ps/task:0"}. */
  public Ops withDevice(String device) {
    return new Ops(scope.withDevice(device));
  }

  /** Ops built through the result are placed by {@code f} (e.g. a replica device setter). */
  public Ops withDeviceFunction(DeviceFunction f) {
    return new Ops(scope.withDeviceFunction(f));
  }

  /** Ops built through the result run after {@code deps}. */
  public Ops withControlDependencies(Operand... deps) {
    return new Ops(scope.withControlDependencies(Arrays.asList(deps)));
  }

  public Ops withControlDependencies(Iterable<? extends Operand> deps) {
    return new Ops(scope.withControlDependencies(deps));
  }

  /** Ops built through the result live on the same device as {@code op}. */
  public Ops withColocation(Operation op) {
    return new Ops(scope.withColocation(op));
  }
}
