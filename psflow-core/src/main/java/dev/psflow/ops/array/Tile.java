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
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Layout;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;

/** Tile: {@code input} repeated {@code multiples[i]} times along dimension i. */
public enum Tile implements OpDef {
  DEF;

  @Override
  public String type() {
    return "Tile";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output x = op.input(0);
    Args.integer(op.input(1), "multiples");
    Args.rank(op.input(1).shape(), 1, "multiples");
    long[] m = StaticValue.longs(op.input(1));
    Shape s = x.shape();
    if (m == null || !s.hasKnownRank()) {
      return List.of(TensorSpec.of(x.dtype(), s.hasKnownRank() ? Shape.unknownOfRank(s.rank()) : StaticValue.asShape(op.input(1))));
    }
    check(m, s.rank());
    long[] out = new long[m.length];
    for (int i = 0; i < m.length; i++) {
      out[i] = s.size(i) < 0 ? -1 : s.size(i) * m[i];
    }
    return List.of(TensorSpec.of(x.dtype(), Shape.of(out)));
  }

  private static void check(long[] m, int rank) {
    if (m.length != rank) {
      throw new IllegalArgumentException("Expected multiples argument to be a vector of length " + rank
          + " but got length " + m.length);
    }
    for (int i = 0; i < m.length; i++) {
      if (m[i] < 0) {
        throw new IllegalArgumentException("Expected multiples[" + i + "] >= 0, but got " + m[i]);
      }
    }
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> {
      Tensor x = ctx.input(0);
      Args.requireRank(ctx.input(1), 1, "multiples");
      long[] m = StaticValue.longs(ctx.input(1));
      try {
        check(m, x.rank());
      } catch (IllegalArgumentException e) {
        throw StatusException.invalidArgument(e.getMessage());
      }
      long[] dims = new long[m.length];
      for (int i = 0; i < m.length; i++) {
        dims[i] = TensorSizeLimit.times(x.shape().size(i), m[i]);
      }
      ctx.checkOutputSize(0, x.dtype(), Shape.of(dims));
      ctx.setOutput(0, Layout.tile(x, StaticValue.toInts(m)));
    };
  }

  /**
   * dx = sum of dy over the copies: dy reshaped to [m0, d0, m1, d1, ...] (each dim split into
   * copies × original) and summed over the even axes.
   */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      Output x = op.input(0);
      long[] m = StaticValue.longs(op.input(1));
      Shape s = x.shape();
      Output split;
      if (m != null && s.isFullyDefined()) {
        int[] d = new int[2 * m.length];
        for (int i = 0; i < m.length; i++) {
          d[2 * i] = (int) m[i];
          d[2 * i + 1] = (int) s.size(i);
        }
        split = tf.constant(d);
      } else {
        split = interleave(tf, op.input(1), StaticValue.shapeOf(tf, x, op.input(1).dtype()));
      }
      Output axes;
      if (s.hasKnownRank()) {
        int[] a = new int[s.rank()];
        for (int i = 0; i < a.length; i++) {
          a[i] = 2 * i;
        }
        axes = tf.constant(a);
      } else {
        axes = Range.create(tf.scope(), tf.constant(0), ShapeQuery.SIZE.create(tf.scope(), split), tf.constant(2));
      }
      List<Operand> r = GradientFn.nulls(2);
      r.set(0, tf.reduceSum(Reshape.create(tf.scope(), grads.get(0), split), axes, false));
      return r;
    };
  }

  /** [a0, b0, a1, b1, ...] from vectors a and b, via a [2, n] matrix transposed and flattened. */
  private static Output interleave(Ops tf, Output a, Output b) {
    boolean wide = a.dtype() == DType.INT64;
    Output row = wide ? tf.constant(new long[] {1, -1}) : tf.constant(new int[] {1, -1});
    Output flat = wide ? tf.constant(new long[] {-1}) : tf.constant(new int[] {-1});
    Output both = ConcatV2.create(tf.scope(),
        List.of(Reshape.create(tf.scope(), a, row), Reshape.create(tf.scope(), b, row)), tf.constant(0));
    return Reshape.create(tf.scope(), Transpose.create(tf.scope(), both, tf.constant(new int[] {1, 0})), flat);
  }

  public static Output create(Scope s, Operand input, Operand multiples) {
    return s.opBuilder(DEF).addInput(input).addInput(multiples)
        .setAttr("T", input.dtype()).setAttr("Tmultiples", multiples.dtype()).build().output(0);
  }
}
