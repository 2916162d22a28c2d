package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Layout;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;

/**
 * Pad: {@code input} surrounded by zeros; {@code paddings} is an int {@code [rank, 2]} matrix of
 * how many to add before and after each dimension. (Slice's gradient is a Pad.)
 */
public enum Pad implements OpDef {
  DEF;

  @Override
  public String type() {
    return "Pad";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output x = op.input(0);
    Output p = op.input(1);
    Args.integer(p, "paddings");
    Shape ps = p.shape();
    if (ps.hasKnownRank() && (ps.rank() != 2 || (ps.size(1) >= 0 && ps.size(1) != 2))) {
      throw new IllegalArgumentException("paddings must be a matrix with 2 columns: " + ps);
    }
    Shape s = x.shape();
    long rows = ps.hasKnownRank() ? ps.size(0) : -1;
    if (s.hasKnownRank() && rows >= 0 && rows != s.rank()) {
      throw new IllegalArgumentException("The first dimension of paddings must be the rank of inputs " + ps + " " + s);
    }
    long[] pad = StaticValue.longs(p);
    int rank = s.hasKnownRank() ? s.rank() : (int) rows;
    if (rank < 0) {
      return List.of(TensorSpec.of(x.dtype(), Shape.unknown()));
    }
    long[] out = new long[rank];
    for (int i = 0; i < rank; i++) {
      long d = s.hasKnownRank() ? s.size(i) : -1;
      out[i] = pad == null || d < 0 ? -1 : d + nonNegative(pad[2 * i], pad[2 * i + 1]);
    }
    return List.of(TensorSpec.of(x.dtype(), Shape.of(out)));
  }

  private static long nonNegative(long before, long after) {
    if (before < 0 || after < 0) {
      throw new IllegalArgumentException("Paddings must be non-negative: " + before + " " + after);
    }
    return before + after;
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> {
      Tensor x = ctx.input(0);
      Tensor p = ctx.input(1);
      if (p.rank() != 2 || p.shape().dim(1) != 2 || p.shape().dim(0) != x.rank()) {
        throw StatusException.invalidArgument("paddings must be a [" + x.rank() + ", 2] matrix for an input of shape "
            + x.shape() + ", got " + p.shape());
      }
      int[] before = new int[x.rank()];
      int[] after = new int[x.rank()];
      long[] dims = new long[x.rank()];
      for (int i = 0; i < before.length; i++) {
        long b = p.getLong(2 * i);
        long a = p.getLong(2 * i + 1);
        nonNegative(b, a);
        dims[i] = TensorSizeLimit.plus(TensorSizeLimit.plus(x.shape().size(i), b), a);
      }
      ctx.checkOutputSize(0, x.dtype(), Shape.of(dims));
      for (int i = 0; i < before.length; i++) {
        before[i] = (int) p.getLong(2 * i);
        after[i] = (int) p.getLong(2 * i + 1);
      }
      ctx.setOutput(0, Layout.pad(x, before, after));
    };
  }

  /** dx = dy sliced from paddings[:, 0] with x's shape. */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      Output x = op.input(0);
      Output p = op.input(1);
      long[] pad = StaticValue.longs(p);
      Output begin;
      if (pad != null) {
        int[] b = new int[pad.length / 2];
        for (int i = 0; i < b.length; i++) {
          b[i] = (int) pad[2 * i];
        }
        begin = tf.constant(b);
      } else {
        boolean wide = p.dtype() == DType.INT64;
        Output first = Slice.create(tf.scope(), p,
            wide ? tf.constant(new long[] {0, 0}) : tf.constant(new int[] {0, 0}),
            wide ? tf.constant(new long[] {-1, 1}) : tf.constant(new int[] {-1, 1}));
        begin = Reshape.create(tf.scope(), first, wide ? tf.constant(new long[] {-1}) : tf.constant(new int[] {-1}));
      }
      List<Operand> r = GradientFn.nulls(2);
      r.set(0, Slice.create(tf.scope(), grads.get(0), begin, StaticValue.shapeOf(tf, x, begin.dtype())));
      return r;
    };
  }

  public static Output create(Scope s, Operand input, Operand paddings) {
    return s.opBuilder(DEF).addInput(input).addInput(paddings)
        .setAttr("T", input.dtype()).setAttr("Tpaddings", paddings.dtype()).build().output(0);
  }
}
