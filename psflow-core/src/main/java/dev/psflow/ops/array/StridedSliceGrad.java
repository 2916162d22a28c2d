package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.OperationBuilder;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.Arrays;
import java.util.List;

/**
 * StridedSliceGrad: the gradient of {@link StridedSlice}. Inputs {@code shape} (the sliced input's
 * shape, an int vector), {@code begin}, {@code end}, {@code strides} and {@code dy} (of the slice's
 * shape), with StridedSlice's masks; the output has shape {@code shape}, {@code dy} at the sliced
 * positions and zeros elsewhere. It is linear in dy, so its own gradient is the slice of the
 * incoming gradient.
 */
public enum StridedSliceGrad implements OpDef {
  DEF;

  @Override
  public String type() {
    return "StridedSliceGrad";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Args.integer(op.input(0), "shape");
    Args.rank(op.input(0).shape(), 1, "shape");
    Shape shape = StaticValue.asShape(op.input(0));
    Shape expected = StridedSlice.sliceShape(op, shape);
    Shape dy = op.input(4).shape();
    if (!expected.isCompatibleWith(dy)) {
      throw new IllegalArgumentException("dy must have the slice's shape " + expected + ", got " + dy);
    }
    return List.of(TensorSpec.of(op.input(4).dtype(), shape));
  }

  @Override
  public Kernel kernel(Operation op) {
    StridedSlice.Masks masks = StridedSlice.Masks.of(op);
    return ctx -> {
      Args.requireRank(ctx.input(0), 1, "shape");
      StridedSlice.requireVectors(ctx.input(1), ctx.input(2), ctx.input(3));
      long[] dims = StaticValue.longs(ctx.input(0));
      for (long d : dims) {
        if (d < 0) {
          throw StatusException.invalidArgument("shape must not hold negative sizes, got " + Arrays.toString(dims));
        }
      }
      Tensor dy = ctx.input(4);
      StridedSliceSpec.Dense d = StridedSliceSpec.analyze(dims, StaticValue.longs(ctx.input(1)),
          StaticValue.longs(ctx.input(2)), StaticValue.longs(ctx.input(3)), masks);
      if (!Arrays.equals(dy.shape().toArray(), d.finalShape())) {
        throw StatusException.invalidArgument("shape of dy was " + dy.shape() + " instead of " + Shape.of(d.finalShape()));
      }
      Tensor out = Tensor.zeros(dy.dtype(), Shape.of(dims));
      Object src = dy.data();
      Object dst = out.data();
      StridedSliceSpec.forEachRow(dims, d, (in, o, n, step) -> {
        if (step == 1) {
          System.arraycopy(src, o, dst, in, n);
        } else {
          for (int k = 0; k < n; k++) {
            System.arraycopy(src, o + k, dst, in + k * step, 1);
          }
        }
      });
      ctx.setOutput(0, out);
    };
  }

  /** d shape, begin, end, strides: none; d dy = StridedSlice(g) with the same spec. */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      List<Operand> r = GradientFn.nulls(5);
      r.set(4, StridedSlice.create(tf.scope(), grads.get(0), op.input(1), op.input(2), op.input(3),
          StridedSlice.Masks.of(op)));
      return r;
    };
  }

  public static Output create(Scope s, Operand shape, Operand begin, Operand end, Operand strides, Operand dy,
      StridedSlice.Masks masks) {
    OperationBuilder b = s.opBuilder(DEF).addInput(shape).addInput(begin).addInput(end).addInput(strides).addInput(dy)
        .setAttr("T", dy.dtype()).setAttr("Index", shape.dtype());
    return masks.setOn(b).build().output(0);
  }
}
