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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Unique: the distinct elements {@code y} of the vector {@code x} in order of first appearance,
 * and {@code idx} (int32 or int64, attribute out_idx) with {@code x[i] = y[idx[i]]}. Floats
 * compare by value (0.0 equals -0.0; each NaN is its own element), as TensorFlow's hash map does.
 * Not differentiable.
 *
 * <pre>{@code
 * List<Output> u = tf.unique(tf.constant(new long[] {7, 3, 7, 5}));   // y [7, 3, 5], idx [0, 1, 0, 2]
 * }</pre>
 */
public enum Unique implements OpDef {
  DEF;

  @Override
  public String type() {
    return "Unique";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output x = op.input(0);
    Args.rank(x.shape(), 1, "x");
    DType outIdx = op.attrType("out_idx");
    if (!outIdx.isInteger()) {
      throw new IllegalArgumentException("out_idx must be int32 or int64, got " + outIdx);
    }
    if (x.dtype() == DType.RESOURCE) {
      throw new IllegalArgumentException("x cannot be a resource");
    }
    Shape idx = x.shape().hasKnownRank() ? x.shape() : Shape.of(-1L);
    return List.of(TensorSpec.of(x.dtype(), Shape.of(-1L)), TensorSpec.of(outIdx, idx));
  }

  @Override
  public Kernel kernel(Operation op) {
    DType outIdx = op.attrType("out_idx");
    return ctx -> {
      Tensor x = ctx.input(0);
      if (x.rank() != 1) {
        throw StatusException.invalidArgument("unique expects a 1D vector, got shape " + x.shape());
      }
      int n = x.size();
      Map<Object, Integer> first = new HashMap<>(Math.max(16, 2 * n));
      int[] idx = new int[n];
      int[] from = new int[n]; // from[k]: the position in x of y[k]
      int count = 0;
      for (int i = 0; i < n; i++) {
        Object key = key(x, i);
        Integer k = first.putIfAbsent(key, count);
        if (k == null) {
          from[count] = i;
          k = count++;
        }
        idx[i] = k;
      }
      Object y = java.lang.reflect.Array.newInstance(x.data().getClass().componentType(), count);
      for (int k = 0; k < count; k++) {
        System.arraycopy(x.data(), from[k], y, k, 1);
      }
      ctx.setOutput(0, Tensor.wrap(x.dtype(), Shape.of(count), y));
      ctx.setOutput(1, outIdx == DType.INT64 ? Tensor.of(widen(idx), n) : Tensor.of(idx, n));
    };
  }

  /** A key equal for equal values: 0.0 and -0.0 fold together, a NaN equals nothing (a fresh object). */
  private static Object key(Tensor x, int i) {
    return switch (x.dtype()) {
      case INT32 -> x.intData()[i];
      case INT64 -> x.longData()[i];
      case BOOL -> x.boolData()[i];
      case STRING -> x.stringData()[i];
      case FLOAT32, FLOAT64 -> {
        double v = x.getDouble(i);
        yield Double.isNaN(v) ? new Object() : v == 0 ? 0.0 : v;
      }
      case RESOURCE -> throw StatusException.invalidArgument("unique of resource handles");
    };
  }

  private static long[] widen(int[] a) {
    long[] r = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = a[i];
    }
    return r;
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  /** y and idx. */
  public static List<Output> create(Scope s, Operand x, DType outIdx) {
    Operation op = s.opBuilder(DEF).addInput(x).setAttr("T", x.dtype()).setAttr("out_idx", outIdx).build();
    return List.of(op.output(0), op.output(1));
  }
}
