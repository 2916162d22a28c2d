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

/**
 * OneHot: for int {@code indices}, a new dimension of size {@code depth} at {@code axis} (-1 =
 * last) holding {@code on_value} at each index and {@code off_value} elsewhere; indices outside
 * [0, depth) give all {@code off_value}.
 */
public enum OneHot implements OpDef {
  DEF;

  @Override
  public String type() {
    return "OneHot";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output indices = op.input(0);
    Args.integer(indices, "indices");
    Args.integer(op.input(1), "depth");
    Args.rank(op.input(1).shape(), 0, "depth");
    Args.rank(op.input(2).shape(), 0, "on_value");
    Args.rank(op.input(3).shape(), 0, "off_value");
    if (op.input(2).dtype() != op.input(3).dtype()) {
      throw new IllegalArgumentException("on_value and off_value must have the same type, got "
          + op.input(2).dtype() + " and " + op.input(3).dtype());
    }
    Long depth = Args.scalar(op.input(1));
    if (depth != null && depth < 0) {
      throw new IllegalArgumentException("depth must be non-negative, got: " + depth);
    }
    long axis = op.attrLong("axis");
    Shape s = indices.shape();
    if (!s.hasKnownRank()) {
      return List.of(TensorSpec.of(op.input(2).dtype(), Shape.unknown()));
    }
    int at = checkAxis(axis, s.rank());
    return List.of(TensorSpec.of(op.input(2).dtype(), Args.insert(s, at, depth == null ? -1 : depth)));
  }

  private static int checkAxis(long axis, int rank) {
    if (axis < -1 || axis > rank) {
      throw new IllegalArgumentException("Expected axis to be -1 or between [0, " + (rank + 1) + ").  But received: " + axis);
    }
    return axis == -1 ? rank : (int) axis;
  }

  @Override
  public Kernel kernel(Operation op) {
    long axis = op.attrLong("axis");
    return ctx -> {
      Tensor indices = ctx.input(0);
      long depth = ctx.input(1).getLong(0);
      if (depth < 0) {
        throw StatusException.invalidArgument("depth must be non-negative, got: " + depth);
      }
      int at = checkAxis(axis, indices.rank());
      long[] dims = new long[indices.rank() + 1];
      for (int i = 0, j = 0; i < dims.length; i++) {
        dims[i] = i == at ? depth : indices.shape().size(j++);
      }
      ctx.checkOutputSize(0, ctx.input(2).dtype(), Shape.of(dims));
      ctx.setOutput(0, Indexing.oneHot(indices, Math.toIntExact(depth), ctx.input(2), ctx.input(3), at));
    };
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  public static Output create(Scope s, Operand indices, Operand depth, Operand on, Operand off, long axis) {
    return s.opBuilder(DEF).addInput(indices).addInput(depth).addInput(on).addInput(off)
        .setAttr("T", on.dtype()).setAttr("TI", indices.dtype()).setAttr("axis", axis).build().output(0);
  }
}
