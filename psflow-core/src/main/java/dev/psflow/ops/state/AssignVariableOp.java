package dev.psflow.ops.state;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.VariableResource;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.ResourceHandle;
import dev.psflow.tensor.Shape;
import java.util.List;

/**
 * AssignVariableOp: sets the variable's value, creating the variable on first use (this is how an
 * initializer brings a variable into being on its task). The variable stores a copy of the value,
 * since it updates its storage in place and the value may be held elsewhere (a constant, a feed, a
 * fetch). psflow's attr {@code _take_input} (default false) makes it take the input tensor itself
 * instead: only for a tensor no one else holds, as the {@code dev.psflow.train.Saver} builds its
 * restores (a freshly read tensor whose only consumer is the assign), so that restoring a variable
 * of N bytes needs N more bytes at its peak, not 2N. TensorFlow gets the same by forwarding a
 * buffer whose reference count is one; psflow's tensors have no such count, so the graph says it.
 */
public enum AssignVariableOp implements OpDef {
  DEF;

  @Override
  public String type() {
    return "AssignVariableOp";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    StateChecks.requireResource(op, 0);
    DType dtype = op.attrType("dtype");
    if (op.input(1).dtype() != dtype) {
      throw new IllegalArgumentException("value is " + op.input(1).dtype() + ", variable is " + dtype);
    }
    Shape declared = VarHandleOp.declaredShape(op.input(0).op());
    if (!declared.isCompatibleWith(op.input(1).shape())) {
      throw new IllegalArgumentException(
          "value of shape " + op.input(1).shape() + " cannot be assigned to a variable of shape " + declared);
    }
    return List.of();
  }

  @Override
  public Kernel kernel(Operation op) {
    DType dtype = op.attrType("dtype");
    Shape declared = VarHandleOp.declaredShape(op.input(0).op());
    boolean takeInput = op.attrBool(TAKE_INPUT, false);
    return ctx -> {
      ResourceHandle h = ctx.input(0).resourceHandle();
      VariableResource v =
          ctx.resources().lookupOrCreate(h, VariableResource.class, () -> new VariableResource(h.name(), dtype, declared));
      // The variable owns its storage and updates it in place, so it must not alias an input others hold.
      v.assign(takeInput ? ctx.input(1) : ctx.input(1).copy());
    };
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  @Override
  public boolean isStateful() {
    return true;
  }

  public static Operation create(Scope s, Operand handle, Operand value) {
    return s.opBuilder(DEF).addInput(handle).addInput(value).setAttr("dtype", value.dtype()).build();
  }

  /** The {@code _take_input} attr's name: see the class comment. */
  public static final String TAKE_INPUT = "_take_input";

  /**
   * An assign that makes {@code value} the variable's storage, without a copy: {@code value} must
   * be a tensor that nothing else holds or reads (one consumer, never fetched), such as a
   * RestoreV2 output feeding only this op.
   */
  public static Operation createTakingInput(Scope s, Operand handle, Operand value) {
    return s.opBuilder(DEF).addInput(handle).addInput(value).setAttr("dtype", value.dtype()).setAttr(TAKE_INPUT, true).build();
  }
}
