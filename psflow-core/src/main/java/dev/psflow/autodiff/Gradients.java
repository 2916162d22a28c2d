package dev.psflow.autodiff;

import dev.psflow.graph.Graph;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.Ops;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the backward subgraph: {@code Gradients.of(ys, xs)} returns d(Σ ys)/d x for each x, as
 * TensorFlow's {@code tf.gradients}. One topological walk backwards from ys over the ops that lie
 * between xs and ys; each op's {@link GradientFn} turns the gradients of its outputs into gradients
 * of its inputs, and contributions reaching one tensor along several paths are added (AddN).
 * StopGradient and ops declared not differentiable stop the flow; an x not connected to any y gets
 * null; an op on the path with no gradient defined is an error naming the op and its type.
 *
 * <p>Placement: the gradient ops of a forward op — its gradient function, the sum of the gradients
 * reaching its outputs, zeros for its unused outputs, the seed of a y — request the device the
 * forward op requested, so a tower built under {@code withDevice("/job:worker/task:1")} has its
 * backward pass there too. (TensorFlow 1.x gives them the device scope around the
 * {@code tf.gradients} call instead; psflow has no ambient device scope, and the forward op's is
 * what in-graph replication needs.) With {@code colocateGradientsWithOps} they are colocated with
 * the forward op instead, as TensorFlow's {@code colocate_gradients_with_ops=True}: they go wherever
 * the forward op is placed, even where it only joined a colocation group. Either way a tensor used
 * on several devices has its gradients summed where it was produced.
 *
 * <pre>{@code
 * List<Output> g = Gradients.of(List.of(loss), List.of(w.handle(), b.handle()));
 * List<Operand> colocated = Gradients.compute(List.of(loss), List.of(w.handle()), null, true);
 * }</pre>
 */
public final class Gradients {
  /** Ops whose gradient is the identity: a variable's read and Identity. */
  private static final java.util.Set<String> PASS_THROUGH = java.util.Set.of("Identity", "ReadVariableOp");

  private Gradients() {}

  /** Dense gradients (IndexedSlices are densified); null for an x that does not reach ys. */
  public static List<Output> of(List<? extends Operand> ys, List<? extends Operand> xs) {
    return of(ys, xs, null);
  }

  public static List<Output> of(List<? extends Operand> ys, List<? extends Operand> xs, List<? extends Operand> gradYs) {
    return of(ys, xs, gradYs, false);
  }

  /** {@link #of} with TensorFlow's {@code colocate_gradients_with_ops}. */
  public static List<Output> of(List<? extends Operand> ys, List<? extends Operand> xs, List<? extends Operand> gradYs,
      boolean colocateGradientsWithOps) {
    List<Output> out = new ArrayList<>();
    for (Operand g : compute(ys, xs, gradYs, colocateGradientsWithOps)) {
      out.add(g == null ? null : g.asOutput());
    }
    return out;
  }

  /**
   * Like {@link #of} but keeps sparse gradients sparse: an element may be an {@link IndexedSlices}
   * (e.g. the gradient of a GatherV2 lookup), so an optimizer can update only the rows used.
   */
  public static List<Operand> compute(List<? extends Operand> ys, List<? extends Operand> xs,
      List<? extends Operand> gradYs) {
    return compute(ys, xs, gradYs, false);
  }

  /** {@link #compute} with TensorFlow's {@code colocate_gradients_with_ops} (see the class comment). */
  public static List<Operand> compute(List<? extends Operand> ys, List<? extends Operand> xs,
      List<? extends Operand> gradYs, boolean colocateGradientsWithOps) {
    if (ys.isEmpty()) {
      throw new IllegalArgumentException("Gradients.of needs at least one y");
    }
    if (gradYs != null && gradYs.size() != ys.size()) {
      throw new IllegalArgumentException(gradYs.size() + " gradYs for " + ys.size() + " ys");
    }
    Graph g = ys.get(0).asOutput().op().graph();
    Ops tf = Ops.create(g).withSubScope("gradients");
    Walk walk = new Walk(g, tf, ys, xs, colocateGradientsWithOps);
    for (int i = 0; i < ys.size(); i++) {
      Output y = ys.get(i).asOutput();
      Operand seed = gradYs != null ? gradYs.get(i) : GradientMath.onesLike(walk.near(y.op()), y);
      walk.add(y, seed);
    }
    walk.run();
    List<Operand> result = new ArrayList<>();
    for (Operand x : xs) {
      result.add(walk.total(x.asOutput()));
    }
    return result;
  }

  /** The state of one backward walk. */
  private static final class Walk {
    private final Ops tf;
    private final boolean colocate;
    private final BitSet between = new BitSet();
    private final int[] pending;
    private final Map<Output, List<Operand>> grads = new HashMap<>();
    private final Map<Output, Operand> totals = new HashMap<>();
    private final List<Operation> ops;
    private final List<List<Operation>> consumers = new ArrayList<>();

    Walk(Graph g, Ops tf, List<? extends Operand> ys, List<? extends Operand> xs, boolean colocate) {
      this.tf = tf;
      this.colocate = colocate;
      this.ops = g.operations();
      for (int i = 0; i < ops.size(); i++) {
        consumers.add(new ArrayList<>());
      }
      for (Operation op : ops) {
        for (Output in : op.inputs()) {
          consumers.get(in.op().id()).add(op);
        }
      }
      BitSet fromX = new BitSet();
      ArrayDeque<Operation> work = new ArrayDeque<>();
      for (Operand x : xs) {
        Operation op = x.asOutput().op();
        if (!fromX.get(op.id())) {
          fromX.set(op.id());
          work.add(op);
        }
      }
      while (!work.isEmpty()) {
        for (Operation c : consumers.get(work.poll().id())) {
          if (!fromX.get(c.id())) {
            fromX.set(c.id());
            work.add(c);
          }
        }
      }
      for (Operand y : ys) {
        Operation op = y.asOutput().op();
        if (fromX.get(op.id()) && !between.get(op.id())) {
          between.set(op.id());
          work.add(op);
        }
      }
      while (!work.isEmpty()) {
        for (Output in : work.poll().inputs()) {
          int id = in.op().id();
          if (fromX.get(id) && !between.get(id)) {
            between.set(id);
            work.add(in.op());
          }
        }
      }
      pending = new int[ops.size()];
      for (int id = between.nextSetBit(0); id >= 0; id = between.nextSetBit(id + 1)) {
        for (Operation c : consumers.get(id)) {
          if (between.get(c.id())) {
            pending[id]++;
          }
        }
      }
    }

    void add(Output t, Operand grad) {
      if (grad != null) {
        grads.computeIfAbsent(t, k -> new ArrayList<>()).add(grad);
      }
    }

    void run() {
      ArrayDeque<Operation> ready = new ArrayDeque<>();
      for (int id = between.nextSetBit(0); id >= 0; id = between.nextSetBit(id + 1)) {
        if (pending[id] == 0) {
          ready.add(ops.get(id));
        }
      }
      while (!ready.isEmpty()) {
        Operation op = ready.poll();
        backprop(op);
        for (Output in : op.inputs()) {
          int id = in.op().id();
          if (between.get(id) && --pending[id] == 0) {
            ready.add(in.op());
          }
        }
      }
    }

    private void backprop(Operation op) {
      List<Output> outGrads = new ArrayList<>();
      boolean any = false;
      for (int i = 0; i < op.numOutputs(); i++) {
        Operand total = total(op.output(i));
        any |= total != null;
        outGrads.add(total == null ? null : total.asOutput());
      }
      if (!any || !needsInputGradients(op)) {
        return;
      }
      if (PASS_THROUGH.contains(op.type())) {
        // d(x)/dx = 1: hand the gradient on as it is, so a sparse one (IndexedSlices) stays sparse
        add(op.input(0), total(op.output(0)));
        return;
      }
      GradientFn fn = op.def().gradient();
      if (fn == null) {
        throw new IllegalArgumentException("no gradient defined for operation '" + op.name() + "' (op type: "
            + op.type() + "), which lies between the ys and xs");
      }
      for (int i = 0; i < outGrads.size(); i++) {
        if (outGrads.get(i) == null && fn != GradientFn.NONE) {
          outGrads.set(i, GradientMath.zerosLike(near(op), op.output(i)));
        }
      }
      Ops scoped = near(op).withSubScope(op.name() + "_grad");
      List<Operand> inGrads = fn.apply(scoped, op, outGrads);
      if (inGrads.size() != op.numInputs()) {
        throw new IllegalStateException("gradient of '" + op.name() + "' (" + op.type() + ") returned "
            + inGrads.size() + " gradients for " + op.numInputs() + " inputs");
      }
      for (int i = 0; i < inGrads.size(); i++) {
        if (between.get(op.input(i).op().id())) {
          add(op.input(i), inGrads.get(i));
        }
      }
    }

    /** Where the gradient ops of {@code forward} are built: with it, or on the device it requested. */
    Ops near(Operation forward) {
      if (colocate) {
        return tf.withColocation(forward);
      }
      return forward.device().isEmpty() ? tf : tf.withDevice(forward.device());
    }

    /** An x op's own inputs need no gradient unless they too lie between xs and ys. */
    private boolean needsInputGradients(Operation op) {
      for (Output in : op.inputs()) {
        if (between.get(in.op().id())) {
          return true;
        }
      }
      return false;
    }

    /** The sum of the gradients reaching {@code t} (memoized, built with t's op), or null when none does. */
    Operand total(Output t) {
      if (totals.containsKey(t)) {
        return totals.get(t);
      }
      List<Operand> list = grads.get(t);
      Operand sum = list == null || list.isEmpty() ? null : GradientMath.aggregate(near(t.op()), list);
      totals.put(t, sum);
      return sum;
    }
  }
}
