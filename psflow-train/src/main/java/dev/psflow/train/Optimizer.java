package dev.psflow.train;

import dev.psflow.autodiff.Gradients;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.Ops;
import dev.psflow.ops.core.NoOp;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * TensorFlow 1.x's {@code tf.train.Optimizer}: {@link #computeGradients} builds the backward pass
 * (on the worker), {@link #applyGradients} one update op per variable, each colocated with its
 * variable together with its hyperparameter constants and slots, so updates run on the variable's
 * ps task and only gradients cross the wire. {@link #minimize} does both.
 *
 * <p>A subclass overrides one method, {@link #applyDense} (and {@link #applySparse} for
 * {@link IndexedSlices} gradients), plus the hooks {@link #createSlots}, {@link #prepare} and
 * {@link #finish} when it needs them. Slot variables ({@code hid_w/Adam}, {@code hid_w/Adam_1})
 * are non-trainable global variables, so the global variables initializer covers them.
 *
 * <p>Not thread-safe: build a graph from one thread. The optimizer holds graph-building state only
 * (its slots); it owns nothing to close.
 *
 * <pre>{@code
 * Variable step = TrainingUtil.getOrCreateGlobalStep(tf);
 * Operation train = new AdamOptimizer(0.001).minimize(loss, step);
 * session.runner().addTarget(train).run();
 * }</pre>
 */
public abstract class Optimizer {
  private final String name;
  private final boolean useLocking;
  private final Map<String, Map<Variable, Variable>> slots = new LinkedHashMap<>();
  private final Map<Graph, Map<String, Variable>> nonSlots = new IdentityHashMap<>();

  /** @param name the name of the ops it builds ("Adam") and of its slots ("hid_w/Adam") */
  protected Optimizer(String name, boolean useLocking) {
    this.name = name;
    this.useLocking = useLocking;
  }

  public String name() {
    return name;
  }

  /** Whether the update ops take their variable's lock ({@code use_locking}). */
  public boolean useLocking() {
    return useLocking;
  }

  /** The gradients of {@code loss} for every trainable variable of its graph. */
  public List<GradAndVar> computeGradients(Operand loss) {
    return computeGradients(loss, null);
  }

  /**
   * The gradients of {@code loss} for each of {@code varList} (the trainable variables when null),
   * in order; a gradient is null where the loss does not depend on the variable, and an
   * {@link IndexedSlices} where only some rows are used (an embedding lookup).
   */
  public List<GradAndVar> computeGradients(Operand loss, List<Variable> varList) {
    return computeGradients(loss, varList, false);
  }

  /**
   * As {@link #computeGradients(Operand, List)}. Each gradient op requests the device of the forward
   * op it differentiates, so a tower built under {@code withDevice("/job:worker/task:1")} has its
   * backward pass on that task; with {@code colocateGradientsWithOps} (TensorFlow's
   * {@code colocate_gradients_with_ops}) each is colocated with its forward op instead, going
   * wherever that op is placed. See {@link Gradients}.
   */
  public List<GradAndVar> computeGradients(Operand loss, List<Variable> varList, boolean colocateGradientsWithOps) {
    Output y = loss.asOutput();
    if (!y.dtype().isFloating()) {
      throw new IllegalArgumentException(
          "invalid type " + y.dtype().tfName() + " for " + y.name() + ", expected: [float, double]");
    }
    List<Variable> vars = varList != null ? varList : Ops.create(y.op().graph()).trainableVariables();
    if (vars.isEmpty()) {
      throw new IllegalArgumentException("No variables to optimize.");
    }
    List<Output> handles = new ArrayList<>();
    for (Variable v : vars) {
      handles.add(v.handle());
    }
    List<Operand> grads = Gradients.compute(List.of(y), handles, null, colocateGradientsWithOps);
    List<GradAndVar> out = new ArrayList<>();
    for (int i = 0; i < vars.size(); i++) {
      out.add(new GradAndVar(grads.get(i), vars.get(i)));
    }
    return out;
  }

  /** {@link #applyGradients(List, Variable, String)} named after the optimizer. */
  public Operation applyGradients(List<GradAndVar> gradsAndVars, Variable globalStep) {
    return applyGradients(gradsAndVars, globalStep, name);
  }

  /**
   * One op that applies every non-null gradient to its variable, then (if {@code globalStep} is
   * not null) increments the global step by one, colocated with it. The op is named {@code name}
   * (made unique), and the updates {@code name/update_<var>/...}.
   */
  public Operation applyGradients(List<GradAndVar> gradsAndVars, Variable globalStep, String name) {
    List<GradAndVar> present = new ArrayList<>();
    List<Variable> vars = new ArrayList<>();
    for (GradAndVar gv : gradsAndVars) {
      if (gv.gradient() != null) {
        present.add(gv);
        vars.add(gv.variable());
      }
    }
    if (present.isEmpty()) {
      throw new IllegalArgumentException("No gradients provided for any variable: " + describe(gradsAndVars) + ".");
    }
    Graph g = vars.get(0).handle().op().graph();
    createSlots(vars);
    Ops tf = Ops.create(g).withSubScope(name);
    String opName = tf.scope().prefix().substring(0, tf.scope().prefix().length() - 1);
    prepare(tf);
    List<Operation> updates = new ArrayList<>();
    for (GradAndVar gv : present) {
      Variable var = gv.variable();
      Ops near = tf.withSubScope("update_" + var.name()).withColocation(var.handle().op());
      updates.add(gv.gradient() instanceof IndexedSlices slices
          ? applySparse(near, slices, var)
          : applyDense(near, gv.gradient().asOutput(), var));
    }
    // The groups that order the step's updates live with the global step (else the first variable),
    // on a ps: placed on the worker, each update would cost a control message across the wire.
    Operation anchor = globalStep != null ? globalStep.handle().op() : vars.get(0).handle().op();
    Operation last = finish(tf.withColocation(anchor), updates);
    if (globalStep != null) {
      Ops atStep = tf.withControlDependencies(last).withColocation(anchor);
      last = atStep.assignAdd(globalStep, atStep.constant(globalStep.dtype(), 1));
    }
    return Scope.root(g).withColocation(anchor).withControlDependencies(List.of(last)).opBuilderExact(NoOp.DEF, opName)
        .build();
  }

  /** {@link #computeGradients} then {@link #applyGradients} for every trainable variable. */
  public Operation minimize(Operand loss, Variable globalStep) {
    return minimize(loss, globalStep, null);
  }

  /**
   * Minimizes {@code loss} over {@code varList} (the trainable variables when null). Throws when
   * no variable has a gradient, naming the variables and the loss.
   */
  public Operation minimize(Operand loss, Variable globalStep, List<Variable> varList) {
    return minimize(loss, globalStep, varList, false);
  }

  /** {@link #minimize(Operand, Variable, List)} with TensorFlow's {@code colocate_gradients_with_ops}. */
  public Operation minimize(Operand loss, Variable globalStep, List<Variable> varList, boolean colocateGradientsWithOps) {
    List<GradAndVar> gradsAndVars = computeGradients(loss, varList, colocateGradientsWithOps);
    if (gradsAndVars.stream().allMatch(gv -> gv.gradient() == null)) {
      throw new IllegalArgumentException("No gradients provided for any variable, check your graph for ops that do "
          + "not support gradients, between variables " + describe(gradsAndVars) + " and loss " + loss.asOutput() + ".");
    }
    return applyGradients(gradsAndVars, globalStep);
  }

  private static String describe(List<GradAndVar> gradsAndVars) {
    List<String> names = new ArrayList<>();
    for (GradAndVar gv : gradsAndVars) {
      names.add(gv.variable().toString());
    }
    return names.toString();
  }

  /**
   * The update of {@code var} by a dense gradient: the one method an optimizer must write.
   * {@code tf} is colocated with the variable, so constants built through it live there too.
   */
  protected abstract Operation applyDense(Ops tf, Output grad, Variable var);

  /**
   * The update of {@code var} by the rows {@code grad.values()} at {@code grad.indices()} (a row may
   * repeat; its values add up). By default the gradient is made dense and given to {@link #applyDense}.
   */
  protected Operation applySparse(Ops tf, IndexedSlices grad, Variable var) {
    return applyDense(tf, grad.asOutput(), var);
  }

  /** Creates the slots of {@code vars} (once per variable); called first by {@link #applyGradients}. */
  protected void createSlots(List<Variable> vars) {}

  /** Called before the updates are built, under the {@code name/} scope. */
  protected void prepare(Ops tf) {}

  /**
   * An op that runs after every update, built under the {@code name/} scope: by default their group
   * {@code name/update}; the place for updates shared by all variables (Adam's β powers).
   */
  protected Operation finish(Ops tf, List<Operation> updates) {
    return tf.withName("update").group(updates);
  }

  /** The slot {@code slotName} of {@code var} ("m" of Adam, "momentum"), or null when it has none. */
  public Variable slot(Variable var, String slotName) {
    Map<Variable, Variable> bySlot = slots.get(slotName);
    return bySlot == null ? null : bySlot.get(var);
  }

  /** The names of the slots this optimizer has created, e.g. {@code [m, v]}. */
  public List<String> slotNames() {
    return List.copyOf(slots.keySet());
  }

  /** A zero-filled slot; see {@link #slotFilledWith}. */
  protected final Variable zerosSlot(Variable var, String slotName) {
    return slotFilledWith(var, slotName, 0);
  }

  /**
   * The slot {@code slotName} of {@code var}, created on first call: a non-trainable variable
   * {@code <var>/<optimizer name>} (made unique) of the variable's dtype and shape, filled with
   * {@code value} by a Fill that, like the slot, is colocated with the variable, so initializing
   * it moves nothing over the wire.
   */
  protected final Variable slotFilledWith(Variable var, String slotName, double value) {
    Map<Variable, Variable> bySlot = slots.computeIfAbsent(slotName, k -> new IdentityHashMap<>());
    Variable slot = bySlot.get(var);
    if (slot == null) {
      Ops near = Ops.create(var.handle().op().graph()).withColocation(var.handle().op());
      Shape shape = var.shape();
      Output init = near.withSubScope(var.name() + "/" + name + "_init")
          .fill(near.constant(shape.toIntArray()), near.constant(var.dtype(), value));
      slot = near.variable(var.name() + "/" + name, init, false);
      sliceLikePrimary(var, slot);
      bySlot.put(var, slot);
    }
    return slot;
  }

  /**
   * A slot of a partition is the same slice of the slot's full variable, as TensorFlow's
   * slot_creator does: {@code emb/part_1/Adagrad} holds rows 5..9 of {@code emb/Adagrad}, so the
   * accumulators follow their table when a checkpoint is restored onto another partitioning.
   */
  private static void sliceLikePrimary(Variable var, Variable slot) {
    SaveSliceInfo.of(var).ifPresent(p -> {
      String suffix = slot.name().startsWith(var.name() + "/") ? slot.name().substring(var.name().length()) : "/" + slot.name();
      new SaveSliceInfo(p.fullName() + suffix, p.fullShape(), p.varOffset(), p.varShape()).attachTo(slot);
    });
  }

  /**
   * A variable shared by all of this optimizer's updates in one graph (Adam's {@code beta1_power}),
   * created on first call colocated with {@code colocateWith}, non-trainable, holding {@code initialValue}.
   */
  protected final Variable nonSlotVariable(String varName, DType dtype, double initialValue, Variable colocateWith) {
    Graph g = colocateWith.handle().op().graph();
    Map<String, Variable> inGraph = nonSlots.computeIfAbsent(g, k -> new LinkedHashMap<>());
    Variable v = inGraph.get(varName);
    if (v == null) {
      Ops near = Ops.create(g).withColocation(colocateWith.handle().op());
      v = near.variable(varName, near.constant(dtype, initialValue), false);
      inGraph.put(varName, v);
    }
    return v;
  }

  /** The non-slot variable {@code varName} of {@code g}, or null before {@link #nonSlotVariable} made it. */
  protected final Variable nonSlotVariable(Graph g, String varName) {
    Map<String, Variable> inGraph = nonSlots.get(g);
    return inGraph == null ? null : inGraph.get(varName);
  }
}
