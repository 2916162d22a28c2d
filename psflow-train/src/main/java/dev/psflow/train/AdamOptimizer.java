package dev.psflow.train;

import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.ReadVariableOp;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Adam (TensorFlow's AdamOptimizer): a fused ResourceApplyAdam per variable with two zero slots,
 * "m" ({@code <var>/Adam}) and "v" ({@code <var>/Adam_1}), and two shared non-slot variables,
 * {@code beta1_power} and {@code beta2_power} (β1^t, β2^t), colocated with the variable whose name
 * sorts first and multiplied by β1, β2 in {@link #finish} after every update of the step.
 *
 * <p>A sparse gradient ({@link IndexedSlices}, from an embedding lookup) updates every row by
 * default, as TensorFlow 1.x's AdamOptimizer ({@code _apply_sparse_shared}): the moments of all rows
 * decay ({@code m ← β1·m}, {@code v ← β2·v}) before the used rows add their (summed) gradient, and
 * every row whose moment is not zero moves. That equals dense Adam on the densified gradient, which
 * is how it is built: an UnsortedSegmentSum into the variable's shape, then ResourceApplyAdam, both
 * colocated with the variable, so only the rows cross the wire.
 *
 * <p>{@link #lazy(double) Lazy} Adam ({@code tf.contrib.opt.LazyAdamOptimizer}) updates only the rows used
 * (ResourceSparseApplyAdam): the moments and values of the other rows stay as they are, which costs
 * work in proportion to the rows used instead of to the whole variable.
 *
 * <pre>{@code
 * Operation train = new AdamOptimizer(0.001).minimize(loss, globalStep);
 * Operation lazyTrain = AdamOptimizer.lazy(0.001).minimize(embeddingLoss, globalStep);
 * }</pre>
 */
public class AdamOptimizer extends Optimizer {
  private final double learningRate;
  private final double beta1;
  private final double beta2;
  private final double epsilon;
  private final boolean lazy;

  /** Adam with TensorFlow's defaults: lr 0.001, β1 0.9, β2 0.999, ε 1e-8. */
  public AdamOptimizer() {
    this(0.001);
  }

  public AdamOptimizer(double learningRate) {
    this(learningRate, 0.9, 0.999, 1e-8);
  }

  public AdamOptimizer(double learningRate, double beta1, double beta2, double epsilon) {
    this(learningRate, beta1, beta2, epsilon, false, "Adam");
  }

  public AdamOptimizer(double learningRate, double beta1, double beta2, double epsilon, boolean useLocking,
      String name) {
    this(learningRate, beta1, beta2, epsilon, useLocking, false, name);
  }

  /**
   * @param lazy whether a sparse gradient updates only the rows it names (LazyAdamOptimizer), rather
   *     than every row as TensorFlow's AdamOptimizer does; dense gradients are not affected
   */
  public AdamOptimizer(double learningRate, double beta1, double beta2, double epsilon, boolean useLocking,
      boolean lazy, String name) {
    super(name, useLocking);
    this.learningRate = learningRate;
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.epsilon = epsilon;
    this.lazy = lazy;
  }

  /** Lazy Adam with TensorFlow's other defaults (β1 0.9, β2 0.999, ε 1e-8): {@code tf.contrib.opt.LazyAdamOptimizer}. */
  public static AdamOptimizer lazy(double learningRate) {
    return new AdamOptimizer(learningRate, 0.9, 0.999, 1e-8, false, true, "Adam");
  }

  /** Whether sparse gradients update only the rows they name. */
  public boolean isLazy() {
    return lazy;
  }

  @Override
  protected void createSlots(List<Variable> vars) {
    Variable first = vars.stream().min(Comparator.comparing(Variable::name)).orElseThrow();
    nonSlotVariable("beta1_power", first.dtype(), beta1, first);
    nonSlotVariable("beta2_power", first.dtype(), beta2, first);
    for (Variable v : vars) {
      zerosSlot(v, "m");
      zerosSlot(v, "v");
    }
  }

  /** β1^t and β2^t of the graph of {@code var}: the non-slot variables. */
  private Variable power(Variable var, String which) {
    return nonSlotVariable(var.handle().op().graph(), which);
  }

  @Override
  protected Operation applyDense(Ops tf, Output grad, Variable var) {
    DType t = var.dtype();
    return tf.resourceApplyAdam(var, slot(var, "m"), slot(var, "v"), power(var, "beta1_power"),
        power(var, "beta2_power"), tf.constant(t, learningRate), tf.constant(t, beta1), tf.constant(t, beta2),
        tf.constant(t, epsilon), grad, useLocking(), false);
  }

  @Override
  protected Operation applySparse(Ops tf, IndexedSlices grad, Variable var) {
    if (!lazy) {
      // TF1's _apply_sparse_shared (m·β1 then scatter_add, v·β2 then scatter_add, var over all rows)
      // on the deduplicated slices is dense Adam on their sum: densified here, next to the variable,
      // and given to the dense kernel. A fused sparse kernel would save the temporary, but this update
      // touches every row anyway, and reusing ResourceApplyAdam keeps one Adam kernel to trust.
      return applyDense(tf, tf.unsortedSegmentSum(grad.values(), grad.indices(), var.shape().dim(0)), var);
    }
    DType t = var.dtype();
    return tf.resourceSparseApplyAdam(var, slot(var, "m"), slot(var, "v"), power(var, "beta1_power"),
        power(var, "beta2_power"), tf.constant(t, learningRate), tf.constant(t, beta1), tf.constant(t, beta2),
        tf.constant(t, epsilon), grad.values(), grad.indices(), useLocking());
  }

  /** After every update: β1^t ← β1^t · β1 and β2^t ← β2^t · β2, next to the powers. */
  @Override
  protected Operation finish(Ops tf, List<Operation> updates) {
    Graph g = tf.graph();
    Ops after = tf.withControlDependencies(updates);
    List<Operation> all = new ArrayList<>(updates);
    all.add(scale(after, nonSlotVariable(g, "beta1_power"), beta1));
    all.add(scale(after, nonSlotVariable(g, "beta2_power"), beta2));
    return tf.withName("update").group(all);
  }

  private Operation scale(Ops tf, Variable power, double factor) {
    Ops near = tf.withColocation(power.handle().op());
    // A fresh read under the control dependencies, so it sees the value after this step's updates.
    Output current = ReadVariableOp.create(near.scope(), power.handle(), power.dtype());
    return near.assign(power, near.mul(current, near.constant(power.dtype(), factor)));
  }
}
