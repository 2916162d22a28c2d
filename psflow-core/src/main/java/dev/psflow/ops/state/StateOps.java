package dev.psflow.ops.state;

import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.ops.core.NoOp;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;

/** The variable ops of the {@link Ops} facade. */
public interface StateOps {
  /** Every op type of this family, for the {@link dev.psflow.ops.OpRegistry}. */
  static List<OpDef> definitions() {
    List<OpDef> all = new ArrayList<>(List.of(VarHandleOp.DEF, ReadVariableOp.DEF, AssignVariableOp.DEF,
        AssignUpdateOp.ADD, AssignUpdateOp.SUB, VarIsInitializedOp.DEF, ReportUninitializedVariables.DEF));
    // Embedding lookups (issue 8)
    all.add(ResourceGather.DEF);
    return List.copyOf(all);
  }

  Scope scope();

  Ops tf();

  /** A trainable variable initialized to {@code initialValue}. */
  default Variable variable(String name, Operand initialValue) {
    return Variable.create(scope(), name, initialValue, true);
  }

  default Variable variable(String name, Operand initialValue, boolean trainable) {
    return Variable.create(scope(), name, initialValue, trainable);
  }

  /** A variable initialized to a constant. */
  default Variable variable(String name, Tensor initialValue, boolean trainable) {
    return Variable.create(scope(), name, tf().constant(initialValue), trainable);
  }

  /** A local variable ({@code LOCAL_VARIABLES}): see {@link Variable#createLocal}. */
  default Variable localVariable(String name, Operand initialValue) {
    return Variable.createLocal(scope(), name, initialValue);
  }

  default Operation assign(Variable v, Operand value) {
    return AssignVariableOp.create(scope().withColocation(v.handle().op()), v.handle(), value);
  }

  default Operation assignAdd(Variable v, Operand delta) {
    return AssignUpdateOp.ADD.create(scope().withColocation(v.handle().op()), v.handle(), delta);
  }

  default Operation assignSub(Variable v, Operand delta) {
    return AssignUpdateOp.SUB.create(scope().withColocation(v.handle().op()), v.handle(), delta);
  }

  default Output isVariableInitialized(Variable v) {
    return VarIsInitializedOp.create(scope().withColocation(v.handle().op()), v.handle());
  }

  /** Every variable of the graph so far. */
  default List<Variable> globalVariables() {
    return scope().graph().collection(Variable.GLOBAL_VARIABLES, Variable.class);
  }

  /** Every local variable of the graph so far. */
  default List<Variable> localVariables() {
    return scope().graph().collection(Variable.LOCAL_VARIABLES, Variable.class);
  }

  default List<Variable> trainableVariables() {
    return scope().graph().collection(Variable.TRAINABLE_VARIABLES, Variable.class);
  }

  /** One op that runs every variable's initializer ({@code tf.global_variables_initializer()}), named "init". */
  default Operation globalVariablesInitializer() {
    return variablesInitializer(globalVariables());
  }

  /** One op that runs every local variable's initializer ({@code tf.local_variables_initializer()}). */
  default Operation localVariablesInitializer() {
    List<Operation> inits = new ArrayList<>();
    for (Variable v : localVariables()) {
      inits.add(v.initializer());
    }
    return NoOp.group(scope().withDefaultName("init_local"), inits);
  }

  default Operation variablesInitializer(List<Variable> vars) {
    List<Operation> inits = new ArrayList<>();
    for (Variable v : vars) {
      inits.add(v.initializer());
    }
    return NoOp.group(scope().withDefaultName("init"), inits);
  }

  /** The names of the uninitialized variables among all of the graph's: the ready op. */
  default Output reportUninitializedVariables() {
    return ReportUninitializedVariables.create(scope().forComposite("report_uninitialized_variables"), globalVariables());
  }

  default Output reportUninitializedVariables(List<Variable> vars) {
    return ReportUninitializedVariables.create(scope().forComposite("report_uninitialized_variables"), vars);
  }

  // ---- Embedding lookups (issue 8) ----

  /**
   * Rows {@code indices} of {@code v} ({@code ResourceGather}), read where the variable lives:
   * the op is colocated with it, so only the rows cross the wire. The gradient is an
   * {@link dev.psflow.ops.IndexedSlices} for the variable.
   */
  default Output resourceGather(Variable v, Operand indices) {
    return ResourceGather.create(scope().withColocation(v.handle().op()), v.handle(), indices, v.dtype());
  }
}
