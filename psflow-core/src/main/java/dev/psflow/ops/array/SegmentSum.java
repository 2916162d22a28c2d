package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.Segments;
import java.util.List;

/**
 * SegmentSum: {@code out[s] = Σ data[i]} over the i with {@code segment_ids[i] = s}, for sorted,
 * non-negative segment ids (a vector of data's first dimension). The result has
 * {@code last id + 1} rows; empty segments are 0. How a weighted sparse embedding lookup combines
 * its rows ({@code tf.segment_sum}).
 */
public enum SegmentSum implements OpDef {
  DEF;

  @Override
  public String type() {
    return "SegmentSum";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output data = op.input(0);
    if (!data.dtype().isNumeric()) {
      throw new IllegalArgumentException("data must be numeric, got " + data.dtype());
    }
    Args.integer(op.input(1), "segment_ids");
    Args.rank(op.input(1).shape(), 1, "segment_ids");
    return List.of(TensorSpec.of(data.dtype(), SparseSegmentReduction.withUnknownRows(data.shape())));
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> ctx.setOutput(0, Segments.segmentSum(ctx.input(0), ctx.input(1)));
  }

  /** d data[i] = dy[segment_ids[i]]: a gather of the output gradient. */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      List<Operand> r = GradientFn.nulls(2);
      r.set(0, tf.gather(grads.get(0), op.input(1)));
      return r;
    };
  }

  public static Output create(Scope s, Operand data, Operand segmentIds) {
    return s.opBuilder(DEF).addInput(data).addInput(segmentIds).setAttr("T", data.dtype())
        .setAttr("Tindices", segmentIds.dtype()).build().output(0);
  }
}
