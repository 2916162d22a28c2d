package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.math.BroadcastGrad;
import dev.psflow.tensor.Layout;
import dev.psflow.tensor.Shape;
import java.util.List;

/**
 * BroadcastTo: {@code input} broadcast (NumPy rules: leading dims added, size-1 dims repeated) to
 * {@code shape}, an int vector. The gradient of Sum and Mean uses it to spread dy back over the
 * reduced axes.
 */
public enum BroadcastTo implements OpDef {
  DEF;

  @Override
  public String type() {
    return "BroadcastTo";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output x = op.input(0);
    Args.integer(op.input(1), "shape");
    Args.rank(op.input(1).shape(), 1, "shape");
    Shape target = StaticValue.asShape(op.input(1));
    Shape s = x.shape();
    if (!target.hasKnownRank() || !s.hasKnownRank()) {
      return List.of(TensorSpec.of(x.dtype(), target));
    }
    if (s.rank() > target.rank()) {
      throw new IllegalArgumentException("Unable to broadcast tensor of shape " + s + " to tensor of shape " + target);
    }
    long[] out = target.toArray();
    for (int i = 0; i < s.rank(); i++) {
      int j = i + target.rank() - s.rank();
      long d = s.size(i);
      if (out[j] >= 0 && d >= 0 && d != 1 && d != out[j]) {
        throw new IllegalArgumentException("Unable to broadcast tensor of shape " + s + " to tensor of shape " + target);
      }
      out[j] = out[j] < 0 && d > 1 ? d : out[j];
    }
    return List.of(TensorSpec.of(x.dtype(), Shape.of(out)));
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> {
      Shape target = Shape.of(StaticValue.longs(ctx.input(1)));
      if (target.isFullyDefined()) {
        ctx.checkOutputSize(0, ctx.input(0).dtype(), target);
      }
      ctx.setOutput(0, Layout.broadcastTo(ctx.input(0), target));
    };
  }

  /** dx = dy summed over the broadcast axes and reshaped to x's shape. */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      List<Operand> r = GradientFn.nulls(2);
      r.set(0, BroadcastGrad.reduceTo(tf, grads.get(0), op.input(0)));
      return r;
    };
  }

  public static Output create(Scope s, Operand input, Operand shape) {
    return s.opBuilder(DEF).addInput(input).addInput(shape)
        .setAttr("T", input.dtype()).setAttr("Tidx", shape.dtype()).build().output(0);
  }
}
