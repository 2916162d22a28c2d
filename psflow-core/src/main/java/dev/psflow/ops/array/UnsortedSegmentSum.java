package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
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
 * UnsortedSegmentSum: output row {@code j} is the sum of the slices {@code data[i...]} whose
 * {@code segment_ids[i...]} is j (segment_ids' shape a prefix of data's); rows no id names are 0.
 * Densifies {@link dev.psflow.ops.IndexedSlices}. Ids outside [0, num_segments) are an error.
 */
public enum UnsortedSegmentSum implements OpDef {
  DEF;

  @Override
  public String type() {
    return "UnsortedSegmentSum";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output data = op.input(0);
    Output ids = op.input(1);
    if (!data.dtype().isNumeric()) {
      throw new IllegalArgumentException("data must be numeric, got " + data.dtype());
    }
    Args.integer(ids, "segment_ids");
    Args.integer(op.input(2), "num_segments");
    Args.rank(op.input(2).shape(), 0, "num_segments");
    Long n = Args.scalar(op.input(2));
    Shape d = data.shape();
    Shape i = ids.shape();
    if (!d.hasKnownRank() || !i.hasKnownRank()) {
      return List.of(TensorSpec.of(data.dtype(), Shape.unknown()));
    }
    if (i.rank() > d.rank() || !d.subShape(0, i.rank()).isCompatibleWith(i)) {
      throw new IllegalArgumentException("data.shape = " + d + " does not start with segment_ids.shape = " + i);
    }
    Shape out = Shape.of(n == null ? -1 : n);
    for (long k : d.subShape(i.rank(), d.rank()).toArray()) {
      out = out.append(k);
    }
    return List.of(TensorSpec.of(data.dtype(), out));
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> {
      Tensor data = ctx.input(0);
      long segments = ctx.input(2).getLong(0);
      int idsRank = ctx.input(1).rank();
      if (segments >= 0 && idsRank <= data.rank()) {
        long[] dims = new long[1 + data.rank() - idsRank];
        dims[0] = segments;
        for (int i = 1; i < dims.length; i++) {
          dims[i] = data.shape().size(idsRank + i - 1);
        }
        ctx.checkOutputSize(0, data.dtype(), Shape.of(dims));
      }
      ctx.setOutput(0, Indexing.unsortedSegmentSum(data, ctx.input(1), segments));
    };
  }

  /** d data[i...] = dy[segment_ids[i...]]: a gather of the output gradient. */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      List<Operand> r = GradientFn.nulls(3);
      r.set(0, GatherV2.create(tf.scope(), grads.get(0), op.input(1), tf.constant(0)));
      return r;
    };
  }

  public static Output create(Scope s, Operand data, Operand segmentIds, Operand numSegments) {
    return s.opBuilder(DEF).addInput(data).addInput(segmentIds).addInput(numSegments)
        .setAttr("T", data.dtype()).setAttr("Tindices", segmentIds.dtype())
        .setAttr("Tnumsegments", numSegments.dtype()).build().output(0);
  }
}
