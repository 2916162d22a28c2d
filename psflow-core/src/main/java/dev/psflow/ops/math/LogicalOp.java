package dev.psflow.ops.math;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.Broadcast;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;

/**
 * The boolean ops: LogicalAnd and LogicalOr (elementwise with NumPy broadcasting) and LogicalNot.
 * BOOL in, BOOL out, no attributes (as TensorFlow's). Not differentiable.
 */
public enum LogicalOp implements OpDef {
  LOGICAL_AND("LogicalAnd"),
  LOGICAL_OR("LogicalOr"),
  LOGICAL_NOT("LogicalNot");

  private final String type;

  LogicalOp(String type) {
    this.type = type;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    for (int i = 0; i < op.numInputs(); i++) {
      if (op.input(i).dtype() != DType.BOOL) {
        throw new IllegalArgumentException(type + " takes bool inputs, got " + op.input(i).dtype() + " for input " + i);
      }
    }
    Shape shape = this == LOGICAL_NOT ? op.input(0).shape() : Broadcast.shape(op.input(0).shape(), op.input(1).shape());
    return List.of(TensorSpec.of(DType.BOOL, shape));
  }

  @Override
  public Kernel kernel(Operation op) {
    if (this == LOGICAL_NOT) {
      return ctx -> {
        boolean[] x = bools(ctx.input(0));
        boolean[] o = new boolean[x.length];
        for (int i = 0; i < x.length; i++) {
          o[i] = !x[i];
        }
        ctx.setOutput(0, Tensor.wrap(DType.BOOL, ctx.input(0).shape(), o));
      };
    }
    boolean and = this == LOGICAL_AND;
    return ctx -> {
      Tensor a = ctx.input(0);
      Tensor b = ctx.input(1);
      boolean[] x = bools(a);
      boolean[] y = bools(b);
      int[] as = a.shape().toIntArray();
      int[] bs = b.shape().toIntArray();
      int[] os = Broadcast.shape(as, bs);
      boolean[] o = new boolean[(int) Shape.of(os).numElements()];
      Broadcast.forEachRun(as, bs, os, (ai, sa, bi, sb, oi, n) -> {
        for (int end = oi + n; oi < end; oi++, ai += sa, bi += sb) {
          o[oi] = and ? x[ai] && y[bi] : x[ai] || y[bi];
        }
      });
      ctx.setOutput(0, Tensor.wrap(DType.BOOL, Shape.of(os), o));
    };
  }

  private boolean[] bools(Tensor t) {
    if (t.dtype() != DType.BOOL) {
      throw StatusException.invalidArgument(type + " takes bool inputs, got " + t.dtype());
    }
    return t.boolData();
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  /** LogicalAnd or LogicalOr of {@code x} and {@code y}. */
  public Output create(Scope s, Operand x, Operand y) {
    if (this == LOGICAL_NOT) {
      throw new IllegalArgumentException("LogicalNot takes one input");
    }
    return s.opBuilder(this).addInput(x).addInput(y).build().output(0);
  }

  /** LogicalNot of {@code x}. */
  public Output create(Scope s, Operand x) {
    if (this != LOGICAL_NOT) {
      throw new IllegalArgumentException(type + " takes two inputs");
    }
    return s.opBuilder(this).addInput(x).build().output(0);
  }
}
