package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.Indexing;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * GatherV2: slices of {@code params} along {@code axis} (an int scalar input) at int
 * {@code indices}; the result has shape params[:axis] + indices.shape + params[axis+1:]. The
 * gradient for params along axis 0 is an {@link IndexedSlices} (only the gathered rows).
 */
public enum GatherV2 implements OpDef {
  DEF;

  @Override
  public String type() {
    return "GatherV2";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output params = op.input(0);
    Output indices = op.input(1);
    Args.integer(indices, "indices");
    Args.integer(op.input(2), "axis");
    Args.rank(op.input(2).shape(), 0, "axis");
    Long axis = Args.scalar(op.input(2));
    Shape p = params.shape();
    Shape i = indices.shape();
    if (axis == null || !p.hasKnownRank() || !i.hasKnownRank()) {
      return List.of(TensorSpec.of(params.dtype(), Shape.unknown()));
    }
    if (p.rank() == 0) {
      throw new IllegalArgumentException("params must be at least 1-D, got a scalar");
    }
    int a = Args.axis(axis, p.rank(), "axis");
    Shape out = p.subShape(0, a);
    for (long d : i.toArray()) {
      out = out.append(d);
    }
    for (long d : p.subShape(a + 1, p.rank()).toArray()) {
      out = out.append(d);
    }
    return List.of(TensorSpec.of(params.dtype(), out));
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> {
      Tensor params = ctx.input(0);
      Args.requireRank(ctx.input(2), 0, "axis");
      long axis = ctx.input(2).getLong(0);
      int rank = params.rank();
      if (rank == 0 || axis < -rank || axis >= rank) {
        throw StatusException.invalidArgument("Expected axis in the range [" + -rank + ", " + rank + "), but got " + axis);
      }
      int at = (int) (axis < 0 ? axis + rank : axis);
      Shape indices = ctx.input(1).shape();
      long[] dims = new long[rank - 1 + indices.rank()];
      for (int i = 0; i < dims.length; i++) {
        dims[i] = i < at ? params.shape().size(i)
            : i < at + indices.rank() ? indices.size(i - at) : params.shape().size(i - indices.rank() + 1);
      }
      ctx.checkOutputSize(0, params.dtype(), Shape.of(dims));
      ctx.setOutput(0, Indexing.gather(params, ctx.input(1), at));
    };
  }

  /**
   * Along axis 0: IndexedSlices(indices, dy as rows, shape(params)) — each gathered row's gradient
   * goes back to its row. Along axis a > 0 the same rows are summed densely: dy is transposed so
   * that the index dimension leads, summed by UnsortedSegmentSum, and transposed back.
   */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      Output params = op.input(0);
      Output indices = op.input(1);
      Long axis = Args.scalar(op.input(2));
      Shape p = params.shape();
      if (axis == null || !p.hasKnownRank() || !indices.shape().hasKnownRank()) {
        throw new IllegalArgumentException("the gradient of GatherV2 needs a constant axis and params and indices of known rank");
      }
      int a = (int) (axis < 0 ? axis + p.rank() : axis);
      boolean flat = indices.shape().rank() == 1;
      Output ids = flat ? indices : Reshape.create(tf.scope(), indices, tf.constant(new int[] {-1}));
      Output values = flat ? grads.get(0) : Reshape.create(tf.scope(), grads.get(0), rowShape(tf, params, a));
      List<Operand> r = GradientFn.nulls(3);
      if (a == 0) {
        r.set(0, new IndexedSlices(ids, values, StaticValue.shapeOf(tf, params, indices.dtype())));
        return r;
      }
      int rank = p.rank();
      int[] toFront = new int[rank];
      int[] back = new int[rank];
      toFront[0] = a;
      for (int k = 1; k < rank; k++) {
        toFront[k] = k <= a ? k - 1 : k;
      }
      for (int k = 0; k < rank; k++) {
        back[toFront[k]] = k;
      }
      Output n = p.size(a) >= 0 ? tf.constant((int) p.size(a))
          : create(tf.scope(), StaticValue.shapeOf(tf, params), tf.constant(a), tf.constant(0));
      Output summed = UnsortedSegmentSum.create(tf.scope(),
          Transpose.create(tf.scope(), values, tf.constant(toFront)), ids, n);
      r.set(0, Transpose.create(tf.scope(), summed, tf.constant(back)));
      return r;
    };
  }

  /** params' shape with its dim {@code a} replaced by -1: dy as one slice per index. */
  private static Output rowShape(Ops tf, Output params, int a) {
    Shape p = params.shape();
    long[] d = p.toArray();
    d[a] = -1;
    boolean known = true;
    for (int k = 0; k < d.length; k++) {
      known &= k == a || d[k] >= 0;
    }
    if (known) {
      return tf.constant(StaticValue.toInts(d));
    }
    Output shape = StaticValue.shapeOf(tf, params);
    List<Output> parts = new ArrayList<>();
    if (a > 0) {
      parts.add(Slice.create(tf.scope(), shape, tf.constant(new int[] {0}), tf.constant(new int[] {a})));
    }
    parts.add(tf.constant(new int[] {-1}));
    parts.add(Slice.create(tf.scope(), shape, tf.constant(new int[] {a + 1}), tf.constant(new int[] {-1})));
    return ConcatV2.create(tf.scope(), parts, tf.constant(0));
  }

  public static Output create(Scope s, Operand params, Operand indices, Operand axis) {
    return s.opBuilder(DEF).addInput(params).addInput(indices).addInput(axis)
        .setAttr("Tparams", params.dtype()).setAttr("Tindices", indices.dtype()).setAttr("Taxis", axis.dtype())
        .build().output(0);
  }
}
