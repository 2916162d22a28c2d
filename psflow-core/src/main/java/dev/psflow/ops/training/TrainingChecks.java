package dev.psflow.ops.training;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.KernelContext;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.VariableResource;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.ResourceHandle;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;

/**
 * Checks shared by the apply ops: resource inputs and shapes at graph time; at run time the
 * variables behind the handles (a copy of the state family's lookup, kept here so the two packages
 * stay independent), their shapes, scalar hyperparameters and {@code use_locking}.
 */
final class TrainingChecks {
  private TrainingChecks() {}

  /** What an apply kernel does once its variable is found (and locked when use_locking is set). */
  @FunctionalInterface
  interface Update {
    void apply(KernelContext ctx, VariableResource var);
  }

  /**
   * A kernel that finds the variable of input 0 and runs {@code update}, under the variable's lock
   * when {@code useLocking}. Only the variable's lock is taken: its slots are updated only by the
   * apply ops of that same variable, so that one lock orders all of them and no lock order is needed.
   */
  static Kernel withVariable(DType dtype, boolean useLocking, Update update) {
    if (!useLocking) {
      return ctx -> {
        update.apply(ctx, variable(ctx, 0, dtype));
        reportStaleness(ctx);
      };
    }
    return ctx -> {
      VariableResource var = variable(ctx, 0, dtype);
      var.lock().lock();
      try {
        update.apply(ctx, var);
      } finally {
        var.lock().unlock();
      }
      reportStaleness(ctx);
    };
  }

  /**
   * Tells the device's watchers how stale the gradient just applied was: the global step now minus
   * the one this task held when the step began (when the parameters were read). Only the task that
   * holds global_step knows both; elsewhere nothing is reported.
   */
  private static void reportStaleness(KernelContext ctx) {
    long read = ctx.step().readGlobalStep();
    if (read >= 0) {
      long now = ctx.device().globalStep();
      if (now >= 0) {
        ctx.device().events().gradientApplied(read, now);
      }
    }
  }

  /** The variable behind input {@code i}, which must exist and hold {@code dtype}. */
  static VariableResource variable(KernelContext ctx, int i, DType dtype) {
    ResourceHandle h = ctx.input(i).resourceHandle();
    VariableResource v = ctx.resources().find(h, VariableResource.class);
    if (v == null) {
      throw StatusException.failedPrecondition(
          "uninitialized variable " + h.name() + ": run its initializer (or the global variables initializer) first");
    }
    if (v.dtype() != dtype) {
      throw StatusException.invalidArgument(
          "variable " + h.name() + " holds " + v.dtype().tfName() + " but op '" + ctx.op().name() + "' expects "
              + dtype.tfName());
    }
    return v;
  }

  /** The live value of slot {@code slot}, which must have {@code var}'s shape. */
  static Tensor slotValue(VariableResource var, Tensor value, VariableResource slot) {
    Tensor s = slot.valueForUpdate();
    if (!s.shape().equals(value.shape())) {
      throw StatusException.invalidArgument("variable " + var.name() + " and its slot " + slot.name()
          + " do not have the same shape: " + value.shape() + " vs " + s.shape());
    }
    return s;
  }

  /** Dense applies: the gradient must have the variable's dtype and shape. */
  static void requireGradShape(VariableResource var, Tensor value, Tensor grad) {
    requireGradType(var, grad);
    if (!grad.shape().equals(value.shape())) {
      throw StatusException.invalidArgument("variable " + var.name() + " and its gradient do not have the same shape: "
          + value.shape() + " vs " + grad.shape());
    }
  }

  static void requireGradType(VariableResource var, Tensor grad) {
    if (grad.dtype() != var.dtype()) {
      throw StatusException.invalidArgument("the gradient of variable " + var.name() + " is " + grad.dtype().tfName()
          + ", expected " + var.dtype().tfName());
    }
  }

  /** The value of the scalar hyperparameter at input {@code i}. */
  static double scalar(KernelContext ctx, int i, String name) {
    Tensor t = ctx.input(i);
    if (t.rank() != 0) {
      throw StatusException.invalidArgument(name + " must be a scalar, got shape " + t.shape());
    }
    return t.getDouble(0);
  }

  /** The declared shape of the resource at input {@code i} when a VarHandleOp produces it (else unknown). */
  static Shape declaredShape(Operation op, int i, DType t, String name) {
    Output in = op.input(i);
    if (in.dtype() != DType.RESOURCE) {
      throw new IllegalArgumentException(name + " must be a resource handle, got " + in.dtype().tfName());
    }
    Operation producer = in.op();
    if (!producer.type().equals("VarHandleOp")) {
      return Shape.unknown();
    }
    DType held = producer.attrType("dtype");
    if (held != t) {
      throw new IllegalArgumentException(
          name + " " + producer.name() + " holds " + held.tfName() + ", but T is " + t.tfName());
    }
    return producer.attrShape("shape");
  }

  /** Graph-time check of sparse rows: grad {@code [n, var.shape[1:]...]}, indices {@code [n]}. */
  static void checkSparseShapes(Shape varShape, Shape gradShape, Output indices) {
    if (indices.dtype() != DType.INT32 && indices.dtype() != DType.INT64) {
      throw new IllegalArgumentException("indices must be int32 or int64, got " + indices.dtype().tfName());
    }
    Shape idx = indices.shape();
    if (idx.hasKnownRank() && idx.rank() != 1) {
      throw new IllegalArgumentException("indices must be a vector, got shape " + idx);
    }
    if (!gradShape.hasKnownRank()) {
      return;
    }
    if (gradShape.rank() < 1) {
      throw new IllegalArgumentException("grad must be at least a vector, got shape " + gradShape);
    }
    if (idx.hasKnownRank() && !Shape.of(gradShape.size(0)).isCompatibleWith(idx)) {
      throw new IllegalArgumentException(
          "grad must be the same size as indices in the first dimension: " + gradShape + " vs " + idx);
    }
    if (varShape.hasKnownRank()
        && (varShape.rank() != gradShape.rank()
            || !varShape.subShape(1, varShape.rank()).isCompatibleWith(gradShape.subShape(1, gradShape.rank())))) {
      throw new IllegalArgumentException(
          "var and grad must match in all dimensions but the first: " + varShape + " vs " + gradShape);
    }
  }
}
