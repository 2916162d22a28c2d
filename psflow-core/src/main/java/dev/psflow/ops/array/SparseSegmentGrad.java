package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Segments;
import dev.psflow.tensor.Shape;
import java.util.List;

/**
 * SparseSegmentMeanGrad and SparseSegmentSqrtNGrad: the gradients of
 * {@link SparseSegmentReduction#MEAN} and {@link SparseSegmentReduction#SQRT_N}. Inputs
 * {@code grad} (one row per segment), {@code indices}, {@code segment_ids} and the int32 scalar
 * {@code output_dim0}; row {@code indices[i]} of the result gets {@code grad[segment_ids[i]]}
 * divided by the segment's count (its square root). Linear in grad: its own gradient is the
 * forward reduction of the incoming gradient (its adjoint).
 */
public enum SparseSegmentGrad implements OpDef {
  MEAN("SparseSegmentMeanGrad", SparseSegmentReduction.MEAN),
  SQRT_N("SparseSegmentSqrtNGrad", SparseSegmentReduction.SQRT_N);

  private final String type;
  private final SparseSegmentReduction forward;

  SparseSegmentGrad(String type, SparseSegmentReduction forward) {
    this.type = type;
    this.forward = forward;
  }

  static SparseSegmentGrad of(SparseSegmentReduction r) {
    return r == SparseSegmentReduction.MEAN ? MEAN : SQRT_N;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output grad = op.input(0);
    SparseSegmentReduction.checkTypes(grad.dtype(), true);
    Args.integer(op.input(1), "indices");
    if (op.input(2).dtype() != DType.INT32 || op.input(3).dtype() != DType.INT32) {
      throw new IllegalArgumentException("segment_ids and output_dim0 must be int32, got " + op.input(2).dtype()
          + " and " + op.input(3).dtype());
    }
    Args.rank(op.input(3).shape(), 0, "output_dim0");
    Long rows = Args.scalar(op.input(3));
    Shape rest = SparseSegmentReduction.withUnknownRows(grad.shape());
    if (!rest.hasKnownRank()) {
      return List.of(TensorSpec.of(grad.dtype(), Shape.unknown()));
    }
    Shape out = Shape.of(rows == null ? -1 : rows);
    for (long d : rest.subShape(1, rest.rank()).toArray()) {
      out = out.append(d);
    }
    return List.of(TensorSpec.of(grad.dtype(), out));
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> ctx.setOutput(0, Segments.sparseSegmentGrad(ctx.input(0), ctx.input(1), ctx.input(2),
        ctx.input(3).scalarLong(), forward.reduction()));
  }

  /** d grad = the forward reduction of dy (the adjoint of this linear map); the int inputs get none. */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      List<Operand> r = GradientFn.nulls(4);
      r.set(0, forward.create(tf.scope(), grads.get(0), op.input(1), op.input(2)));
      return r;
    };
  }

  public Output create(Scope s, Operand grad, Operand indices, Operand segmentIds, Operand outputDim0) {
    return s.opBuilder(this).addInput(grad).addInput(indices).addInput(segmentIds).addInput(outputDim0)
        .setAttr("T", grad.dtype()).setAttr("Tidx", indices.dtype()).build().output(0);
  }
}
