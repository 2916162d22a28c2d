package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Segments;
import dev.psflow.tensor.Shape;
import java.util.List;

/**
 * SparseSegmentSum, SparseSegmentMean and SparseSegmentSqrtN: {@code out[s]} combines the rows
 * {@code data[indices[i]]} over the i with {@code segment_ids[i] = s} — their sum, their mean, or
 * their sum divided by √count. {@code indices} is int32 or int64 (attribute Tidx), the sorted
 * {@code segment_ids} int32 of the same length; the result has {@code last id + 1} rows. How an
 * unweighted sparse embedding lookup combines the rows of each example (its "sum", "mean" and
 * "sqrtn" combiners). Mean and sqrt-n take float types only.
 */
public enum SparseSegmentReduction implements OpDef {
  SUM("SparseSegmentSum", Segments.Reduction.SUM),
  MEAN("SparseSegmentMean", Segments.Reduction.MEAN),
  SQRT_N("SparseSegmentSqrtN", Segments.Reduction.SQRT_N);

  private final String type;
  private final Segments.Reduction reduction;

  SparseSegmentReduction(String type, Segments.Reduction reduction) {
    this.type = type;
    this.reduction = reduction;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output data = op.input(0);
    checkTypes(data.dtype(), this != SUM);
    Args.integer(op.input(1), "indices");
    Args.rank(op.input(1).shape(), 1, "indices");
    if (op.input(2).dtype() != DType.INT32) {
      throw new IllegalArgumentException("segment_ids must be int32, got " + op.input(2).dtype());
    }
    Args.rank(op.input(2).shape(), 1, "segment_ids");
    return List.of(TensorSpec.of(data.dtype(), withUnknownRows(data.shape())));
  }

  static void checkTypes(DType t, boolean floatOnly) {
    if (floatOnly ? !t.isFloating() : !t.isNumeric()) {
      throw new IllegalArgumentException("data must be " + (floatOnly ? "float or double" : "numeric") + ", got " + t);
    }
  }

  /** {@code [?] + s[1:]}, the shape of a segment reduction of rows of shape s[1:]. */
  static Shape withUnknownRows(Shape s) {
    if (!s.hasKnownRank()) {
      return Shape.unknown();
    }
    if (s.rank() < 1) {
      throw new IllegalArgumentException("data must be at least 1-D, got a scalar");
    }
    Shape out = Shape.of(-1L);
    for (long d : s.subShape(1, s.rank()).toArray()) {
      out = out.append(d);
    }
    return out;
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> ctx.setOutput(0, Segments.sparseSegment(ctx.input(0), ctx.input(1), ctx.input(2), reduction));
  }

  /**
   * Sum: each picked row gets its segment's gradient, summed per row of data:
   * UnsortedSegmentSum(Gather(dy, segment_ids), indices, rows(data)). Mean and sqrt-n: the same
   * scaled by 1/count (1/√count) of the segment, which SparseSegmentMeanGrad / SqrtNGrad compute.
   */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      Output rows = rows(tf, op.input(0));
      List<Operand> r = GradientFn.nulls(3);
      r.set(0, this == SUM
          ? tf.unsortedSegmentSum(tf.gather(grads.get(0), op.input(2)), op.input(1), rows)
          : SparseSegmentGrad.of(this).create(tf.scope(), grads.get(0), op.input(1), op.input(2), rows));
      return r;
    };
  }

  /** The first dimension of {@code x} as an int32 scalar. */
  static Output rows(Ops tf, Output x) {
    Shape s = x.shape();
    if (s.hasKnownRank() && s.rank() >= 1 && s.size(0) >= 0) {
      return tf.constant(Math.toIntExact(s.size(0)));
    }
    return tf.gather(tf.shape(x), tf.constant(0));
  }

  Segments.Reduction reduction() {
    return reduction;
  }

  public Output create(Scope s, Operand data, Operand indices, Operand segmentIds) {
    return s.opBuilder(this).addInput(data).addInput(indices).addInput(segmentIds).setAttr("T", data.dtype())
        .setAttr("Tidx", indices.dtype()).build().output(0);
  }
}
