package dev.psflow.ops.queue;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.KernelContext;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.core.Const;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import java.util.List;

/**
 * AccumulatorApplyGradient(handle, local_step, gradient) and SparseAccumulatorApplyGradient(handle,
 * local_step, gradient_indices, gradient_values, gradient_shape): add a gradient computed at
 * {@code local_step} to the accumulator, or drop it (counted) when local_step is below the
 * accumulator's global step. A gradient that completes a waiting take completes it here.
 */
public enum AccumulatorApply implements OpDef {
  DENSE("AccumulatorApplyGradient"),
  SPARSE("SparseAccumulatorApplyGradient");

  private final String type;

  AccumulatorApply(String type) {
    this.type = type;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    QueueChecks.requireResource(op, 0);
    QueueChecks.requireType(op, 1, DType.INT64, "local_step");
    DType dtype = op.attrType("dtype");
    switch (this) {
      case DENSE -> QueueChecks.requireType(op, 2, dtype, "gradient");
      case SPARSE -> {
        QueueChecks.requireType(op, 2, DType.INT64, "gradient_indices");
        QueueChecks.requireType(op, 3, dtype, "gradient_values");
        QueueChecks.requireType(op, 4, DType.INT64, "gradient_shape");
        op.attrBool("has_known_shape");
      }
    }
    return List.of();
  }

  @Override
  public Kernel kernel(Operation op) {
    return switch (this) {
      case DENSE -> ctx -> report(ctx, QueueChecks.resource(ctx, 0, DenseAccumulator.class), ctx.input(2));
      case SPARSE -> {
        boolean knownShape = op.attrBool("has_known_shape");
        yield ctx -> report(ctx, QueueChecks.resource(ctx, 0, SparseAccumulator.class),
            new SparseGradient(ctx.input(2), ctx.input(3), knownShape ? ctx.input(4) : null));
      }
    };
  }

  /** Offers the gradient and tells the device's watchers (metrics, who-is-missing) how it went. */
  private static <G> void report(KernelContext ctx, Accumulator<G> acc, G gradient) {
    long localStep = QueueChecks.scalar(ctx.input(1), "local_step");
    long globalStep = acc.globalStep();
    boolean added = acc.apply(localStep, gradient);
    ctx.device().events().gradientAccumulated(ctx.step().caller(), acc.name(), localStep, globalStep, added);
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  @Override
  public boolean isStateful() {
    return true;
  }

  public static Operation createDense(Scope s, Output handle, Operand localStep, Operand gradient) {
    return s.opBuilder(DENSE).addInput(handle).addInput(localStep).addInput(gradient)
        .setAttr("dtype", gradient.dtype()).build();
  }

  /** {@code shape} may be null: the gradient's dense shape is unknown (has_known_shape false). */
  public static Operation createSparse(Scope s, Output handle, Operand localStep, Operand indices, Operand values,
      Operand shape) {
    Operand shapeIn = shape != null ? shape : Const.create(s.helperScope(), Tensor.vector(new long[0]));
    return s.opBuilder(SPARSE).addInput(handle).addInput(localStep).addInput(indices).addInput(values)
        .addInput(shapeIn).setAttr("dtype", values.dtype()).setAttr("has_known_shape", shape != null).build();
  }
}
