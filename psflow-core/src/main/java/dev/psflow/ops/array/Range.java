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
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;

/** Range: the vector start, start + delta, ... up to but excluding limit (scalars of one numeric type). */
public enum Range implements OpDef {
  DEF;

  @Override
  public String type() {
    return "Range";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    DType t = op.input(0).dtype();
    for (int i = 0; i < 3; i++) {
      Args.rank(op.input(i).shape(), 0, i == 0 ? "start" : i == 1 ? "limit" : "delta");
      if (op.input(i).dtype() != t || !t.isNumeric()) {
        throw new IllegalArgumentException("start, limit and delta must have one numeric type, got "
            + op.input(0).dtype() + ", " + op.input(1).dtype() + ", " + op.input(2).dtype());
      }
    }
    Tensor start = StaticValue.of(op.input(0));
    Tensor limit = StaticValue.of(op.input(1));
    Tensor delta = StaticValue.of(op.input(2));
    long n = start == null || limit == null || delta == null ? -1
        : count(start.getDouble(0), limit.getDouble(0), delta.getDouble(0));
    return List.of(TensorSpec.of(t, Shape.of(n)));
  }

  private static long count(double start, double limit, double delta) {
    if (delta == 0) {
      throw new IllegalArgumentException("Requires delta != 0: " + delta);
    }
    if (delta > 0 ? start > limit : start < limit) {
      throw new IllegalArgumentException("Requires start " + (delta > 0 ? "<=" : ">=") + " limit when delta "
          + (delta > 0 ? "> 0: " : "< 0: ") + start + "/" + limit);
    }
    return (long) Math.ceil(Math.abs((limit - start) / delta));
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> {
      Tensor start = ctx.input(0);
      Tensor limit = ctx.input(1);
      Tensor delta = ctx.input(2);
      long count = count(start.getDouble(0), limit.getDouble(0), delta.getDouble(0));
      ctx.checkOutputSize(0, start.dtype(), Shape.of(count));
      int n = (int) count;
      Object out = switch (start.dtype()) {
        case INT32 -> {
          int[] r = new int[n];
          for (int i = 0; i < n; i++) {
            r[i] = (int) (start.getLong(0) + i * delta.getLong(0));
          }
          yield r;
        }
        case INT64 -> {
          long[] r = new long[n];
          for (int i = 0; i < n; i++) {
            r[i] = start.getLong(0) + i * delta.getLong(0);
          }
          yield r;
        }
        case FLOAT32 -> {
          float[] r = new float[n];
          for (int i = 0; i < n; i++) {
            r[i] = (float) (start.getDouble(0) + i * delta.getDouble(0));
          }
          yield r;
        }
        default -> {
          double[] r = new double[n];
          for (int i = 0; i < n; i++) {
            r[i] = start.getDouble(0) + i * delta.getDouble(0);
          }
          yield r;
        }
      };
      ctx.setOutput(0, Tensor.wrap(start.dtype(), Shape.of(n), out));
    };
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  public static Output create(Scope s, Operand start, Operand limit, Operand delta) {
    return s.opBuilder(DEF).addInput(start).addInput(limit).addInput(delta)
        .setAttr("Tidx", start.dtype()).build().output(0);
  }
}
