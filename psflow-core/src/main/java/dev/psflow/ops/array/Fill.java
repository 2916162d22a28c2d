package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.Indexing;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;

/** Fill: a tensor of shape {@code dims} (an int vector) with every element equal to the scalar {@code value}. */
public enum Fill implements OpDef {
  DEF;

  @Override
  public String type() {
    return "Fill";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Args.integer(op.input(0), "dims");
    Args.rank(op.input(0).shape(), 1, "dims");
    Args.rank(op.input(1).shape(), 0, "value");
    return List.of(TensorSpec.of(op.input(1).dtype(), StaticValue.asShape(op.input(0))));
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> {
      Args.requireRank(ctx.input(0), 1, "dims");
      Args.requireRank(ctx.input(1), 0, "value");
      long[] dims = StaticValue.longs(ctx.input(0));
      for (long d : dims) {
        if (d < 0) {
          throw StatusException.invalidArgument("dims must be non-negative, got " + java.util.Arrays.toString(dims));
        }
      }
      ctx.checkOutputSize(0, ctx.input(1).dtype(), Shape.of(dims));
      ctx.setOutput(0, Indexing.fill(Shape.of(dims), ctx.input(1)));
    };
  }

  /** Not differentiable (as declared for psflow; TensorFlow sums dy into {@code value}). */
  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  public static Output create(Scope s, Operand dims, Operand value) {
    return s.opBuilder(DEF).addInput(dims).addInput(value)
        .setAttr("T", value.dtype()).setAttr("index_type", dims.dtype()).build().output(0);
  }
}
