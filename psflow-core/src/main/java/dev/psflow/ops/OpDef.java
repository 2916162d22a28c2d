package dev.psflow.ops;

import dev.psflow.exec.Kernel;
import dev.psflow.graph.Operation;
import dev.psflow.graph.TensorSpec;
import java.util.List;

/**
 * One op type, declared in one place: its TensorFlow name, its shape function, its CPU kernel and
 * its gradient. Implementations are stateless singletons (a {@code DEF} constant, or an enum
 * constant for families of similar ops) listed in {@link OpRegistry}.
 *
 * <pre>{@code
 * enum Relu implements OpDef { DEF;
 *   public String type() { return "Relu"; }
 *   public List<TensorSpec> outputs(Operation op) { return List.of(Shapes.same(op.input(0))); }
 *   public Kernel kernel(Operation op) { return ctx -> ctx.setOutput(0, Elementwise.relu(ctx.input(0))); }
 *   public GradientFn gradient() { return (tf, op, dy) -> List.of(tf.reluGrad(dy.get(0), op.output(0))); }
 * }
 * }</pre>
 */
public interface OpDef {
  /** TensorFlow's op type name, e.g. {@code "MatMul"}. */
  String type();

  /**
   * Output dtypes and (possibly partial) shapes for a node with these inputs and attributes.
   * Throws IllegalArgumentException saying what is wrong; the builder adds the op name.
   */
  List<TensorSpec> outputs(Operation op);

  /** The CPU kernel for one node; called once per executor, so it may precompute from attributes. */
  Kernel kernel(Operation op);

  /**
   * How to differentiate: a function, {@link GradientFn#NONE} for ops declared not differentiable
   * (no gradient flows through them), or null when no gradient is defined (an error if such an op
   * lies on a path that needs one).
   */
  default GradientFn gradient() {
    return null;
  }

  /**
   * True for ops worth a thread of their own (a MatMul, an optimizer apply) when their inputs are
   * large: when several such ops become ready at once, the executor hands them to other cores and
   * runs the rest inline, since a thread handoff costs more than a cheap kernel.
   */
  default boolean isExpensive() {
    return false;
  }

  /** True for ops whose result is not a function of their inputs (random, variables, queues). */
  default boolean isStateful() {
    return false;
  }
}
