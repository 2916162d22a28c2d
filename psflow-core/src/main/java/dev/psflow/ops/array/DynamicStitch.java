package dev.psflow.ops.array;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.Arrays;
import java.util.List;

/**
 * DynamicStitch and ParallelDynamicStitch: interleave {@code N} tensors {@code data[i]} into one,
 * {@code merged[indices[i][j...], ...] = data[i][j..., ...]}, where the int32 {@code indices[i]}
 * shape is a prefix of {@code data[i]}'s and the rest of every data shape is the same. The result
 * has {@code max(indices) + 1} rows; rows no index names are zero. When an index repeats the last
 * value wins (DynamicStitch guarantees it, ParallelDynamicStitch does not promise it; this kernel
 * runs in order for both). Inputs: the N indices, then the N data (attributes N and T).
 */
public enum DynamicStitch implements OpDef {
  DYNAMIC_STITCH("DynamicStitch"),
  PARALLEL("ParallelDynamicStitch");

  private final String type;

  DynamicStitch(String type) {
    this.type = type;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    int n = op.attrInt("N");
    if (n < 1 || op.numInputs() != 2 * n) {
      throw new IllegalArgumentException("expects N >= 1 indices and N data, got " + op.numInputs() + " inputs for N = " + n);
    }
    DType t = op.input(n).dtype();
    Shape rest = null;
    long rows = 0;
    for (int i = 0; i < n; i++) {
      Output idx = op.input(i);
      Output data = op.input(n + i);
      if (idx.dtype() != DType.INT32) {
        throw new IllegalArgumentException("indices[" + i + "] must be int32, got " + idx.dtype());
      }
      if (data.dtype() != t) {
        throw new IllegalArgumentException("data[" + i + "] is " + data.dtype() + ", data[0] is " + t);
      }
      Shape is = idx.shape();
      Shape ds = data.shape();
      if (is.hasKnownRank() && ds.hasKnownRank()) {
        if (is.rank() > ds.rank() || !ds.subShape(0, is.rank()).isCompatibleWith(is)) {
          throw new IllegalArgumentException("data[" + i + "].shape = " + ds + " does not start with indices[" + i
              + "].shape = " + is);
        }
        Shape tail = ds.subShape(is.rank(), ds.rank());
        if (rest != null && rest.hasKnownRank() && !rest.isCompatibleWith(tail)) {
          throw new IllegalArgumentException("data[" + i + "] has slices of shape " + tail + ", data[0] of shape " + rest);
        }
        rest = rest == null || !rest.hasKnownRank() ? tail : rest.mergeWith(tail);
      } else if (rest == null) {
        rest = Shape.unknown();
      }
      long[] v = StaticValue.longs(idx);
      if (v == null) {
        rows = -1;
      } else if (rows >= 0) {
        for (long k : v) {
          rows = Math.max(rows, k + 1);
        }
      }
    }
    if (!rest.hasKnownRank()) {
      return List.of(TensorSpec.of(t, Shape.unknown()));
    }
    Shape out = Shape.of(rows);
    for (long d : rest.toArray()) {
      out = out.append(d);
    }
    return List.of(TensorSpec.of(t, out));
  }

  @Override
  public Kernel kernel(Operation op) {
    int n = op.attrInt("N");
    return ctx -> {
      Tensor first = ctx.input(n);
      long[] rest = null;
      int rows = 0;
      for (int i = 0; i < n; i++) {
        Tensor idx = ctx.input(i);
        Tensor data = ctx.input(n + i);
        long[] ds = data.shape().toArray();
        long[] is = idx.shape().toArray();
        if (is.length > ds.length || !Arrays.equals(Arrays.copyOf(ds, is.length), is)) {
          throw StatusException.invalidArgument("data[" + i + "].shape = " + data.shape()
              + " does not start with indices[" + i + "].shape = " + idx.shape());
        }
        long[] tail = Arrays.copyOfRange(ds, is.length, ds.length);
        if (rest != null && !Arrays.equals(rest, tail)) {
          throw StatusException.invalidArgument("data[" + i + "] has slices of shape " + Shape.of(tail)
              + ", data[0] of shape " + Shape.of(rest));
        }
        rest = tail;
        for (int k : idx.intData()) {
          if (k < 0) {
            throw StatusException.invalidArgument("indices[" + i + "] holds " + k + ", which is negative");
          }
          rows = Math.max(rows, k + 1);
        }
      }
      long[] dims = new long[rest.length + 1];
      dims[0] = rows;
      System.arraycopy(rest, 0, dims, 1, rest.length);
      Tensor out = Tensor.zeros(first.dtype(), Shape.of(dims));
      int slice = (int) Shape.of(rest).numElements();
      for (int i = 0; i < n; i++) {
        int[] idx = ctx.input(i).intData();
        Object src = ctx.input(n + i).data();
        for (int j = 0; j < idx.length; j++) {
          System.arraycopy(src, j * slice, out.data(), idx[j] * slice, slice);
        }
      }
      ctx.setOutput(0, out);
    };
  }

  /**
   * data[i] gets the rows of the output gradient it was stitched into: {@code Gather(dy, indices[i])}
   * (TensorFlow's; with repeated indices every copy gets the gradient). Indices get none.
   */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      int n = op.numInputs() / 2;
      List<Operand> r = GradientFn.nulls(2 * n);
      for (int i = 0; i < n; i++) {
        r.set(n + i, tf.gather(grads.get(0), op.input(i)));
      }
      return r;
    };
  }

  public Output create(Scope s, List<? extends Operand> indices, List<? extends Operand> data) {
    if (indices.isEmpty() || indices.size() != data.size()) {
      throw new IllegalArgumentException(type + " needs as many indices as data (at least one), got "
          + indices.size() + " and " + data.size());
    }
    return s.opBuilder(this).addInputList(indices).addInputList(data).setAttr("N", indices.size())
        .setAttr("T", data.get(0).dtype()).build().output(0);
  }
}
