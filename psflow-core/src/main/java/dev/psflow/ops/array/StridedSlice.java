package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.OperationBuilder;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;

/**
 * StridedSlice: NumPy's basic indexing, {@code x[begin:end:stride, ...]}, as TensorFlow's
 * {@code tf.strided_slice}. {@code begin}, {@code end} and {@code strides} are int vectors with
 * one entry per item of the slice spec; bit i of the masks changes item i: {@code begin_mask}
 * and {@code end_mask} ignore begin[i] or end[i] (the whole range), {@code ellipsis_mask} makes
 * the item {@code ...} (as many full dimensions as needed), {@code new_axis_mask} inserts a
 * dimension of size 1, {@code shrink_axis_mask} takes the single index begin[i] and drops the
 * dimension. Negative indices count from the end; out-of-range bounds are clamped, except a
 * shrunk index, which must exist. The gradient is {@link StridedSliceGrad}.
 *
 * <pre>{@code
 * Output rows = tf.stridedSlice(x, new int[] {1}, new int[] {-1}, new int[] {2});            // x[1:-1:2]
 * Output col0 = tf.stridedSlice(indices, new int[] {0, 0}, new int[] {0, 1}, new int[] {1, 1},
 *     StridedSlice.Masks.NONE.withBeginMask(1).withEndMask(1).withShrinkAxisMask(2));     // indices[:, 0]
 * }</pre>
 */
public enum StridedSlice implements OpDef {
  DEF;

  /**
   * The five masks of a strided slice, one bit per slice-spec item (TensorFlow's attributes
   * begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask).
   */
  public record Masks(int beginMask, int endMask, int ellipsisMask, int newAxisMask, int shrinkAxisMask) {
    public static final Masks NONE = new Masks(0, 0, 0, 0, 0);

    public Masks withBeginMask(int m) {
      return new Masks(m, endMask, ellipsisMask, newAxisMask, shrinkAxisMask);
    }

    public Masks withEndMask(int m) {
      return new Masks(beginMask, m, ellipsisMask, newAxisMask, shrinkAxisMask);
    }

    public Masks withEllipsisMask(int m) {
      return new Masks(beginMask, endMask, m, newAxisMask, shrinkAxisMask);
    }

    public Masks withNewAxisMask(int m) {
      return new Masks(beginMask, endMask, ellipsisMask, m, shrinkAxisMask);
    }

    public Masks withShrinkAxisMask(int m) {
      return new Masks(beginMask, endMask, ellipsisMask, newAxisMask, m);
    }

    /** The masks of an op built with them. */
    static Masks of(Operation op) {
      return new Masks(op.attrInt("begin_mask"), op.attrInt("end_mask"), op.attrInt("ellipsis_mask"),
          op.attrInt("new_axis_mask"), op.attrInt("shrink_axis_mask"));
    }

    OperationBuilder setOn(OperationBuilder b) {
      return b.setAttr("begin_mask", beginMask).setAttr("end_mask", endMask).setAttr("ellipsis_mask", ellipsisMask)
          .setAttr("new_axis_mask", newAxisMask).setAttr("shrink_axis_mask", shrinkAxisMask);
    }
  }

  @Override
  public String type() {
    return "StridedSlice";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output x = op.input(0);
    return List.of(TensorSpec.of(x.dtype(), sliceShape(op, x.shape())));
  }

  /** The result shape for an input of shape {@code in}, as far as it is known; shared with StridedSliceGrad. */
  static Shape sliceShape(Operation op, Shape in) {
    for (int i = 1; i <= 3; i++) {
      Args.integer(op.input(i), i == 1 ? "begin" : i == 2 ? "end" : "strides");
      Args.rank(op.input(i).shape(), 1, i == 1 ? "begin" : i == 2 ? "end" : "strides");
    }
    long[] strides = StaticValue.longs(op.input(3));
    if (!in.hasKnownRank() || strides == null) {
      return Shape.unknown();
    }
    StridedSliceSpec.Dense d = StridedSliceSpec.analyze(in.toArray(), StaticValue.longs(op.input(1)),
        StaticValue.longs(op.input(2)), strides, Masks.of(op));
    return Shape.of(d.finalShape());
  }

  @Override
  public Kernel kernel(Operation op) {
    Masks masks = Masks.of(op);
    return ctx -> {
      Tensor x = ctx.input(0);
      long[] dims = x.shape().toArray();
      requireVectors(ctx.input(1), ctx.input(2), ctx.input(3));
      StridedSliceSpec.Dense d = StridedSliceSpec.analyze(dims, StaticValue.longs(ctx.input(1)),
          StaticValue.longs(ctx.input(2)), StaticValue.longs(ctx.input(3)), masks);
      Object out = java.lang.reflect.Array.newInstance(x.data().getClass().componentType(),
          Math.toIntExact(StridedSliceSpec.product(d.processing())));
      Object src = x.data();
      StridedSliceSpec.forEachRow(dims, d, (in, o, n, step) -> {
        if (step == 1) {
          System.arraycopy(src, in, out, o, n);
        } else {
          for (int k = 0; k < n; k++) {
            System.arraycopy(src, in + k * step, out, o + k, 1);
          }
        }
      });
      ctx.setOutput(0, Tensor.wrap(x.dtype(), Shape.of(d.finalShape()), out));
    };
  }

  static void requireVectors(Tensor begin, Tensor end, Tensor strides) {
    Args.requireRank(begin, 1, "begin");
    Args.requireRank(end, 1, "end");
    Args.requireRank(strides, 1, "strides");
  }

  /** dx = StridedSliceGrad(shape(x), begin, end, strides, dy) with the same masks: dy scattered back, zeros elsewhere. */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      Output begin = op.input(1);
      Output shape = StaticValue.shapeOf(tf, op.input(0), begin.dtype());
      List<Operand> r = GradientFn.nulls(4);
      r.set(0, StridedSliceGrad.create(tf.scope(), shape, begin, op.input(2), op.input(3), grads.get(0), Masks.of(op)));
      return r;
    };
  }

  public static Output create(Scope s, Operand input, Operand begin, Operand end, Operand strides, Masks masks) {
    OperationBuilder b = s.opBuilder(DEF).addInput(input).addInput(begin).addInput(end).addInput(strides)
        .setAttr("T", input.dtype()).setAttr("Index", begin.dtype());
    return masks.setOn(b).build().output(0);
  }
}
