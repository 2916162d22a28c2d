package dev.psflow.ops.math;

import dev.psflow.exec.Kernel;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.Broadcast;
import dev.psflow.tensor.CompareFn;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Elementwise;
import java.util.List;

/**
 * Elementwise comparisons with broadcasting (Equal, NotEqual, Less, LessEqual, Greater,
 * GreaterEqual), giving BOOL. Not differentiable.
 */
public enum CompareOp implements OpDef {
  EQUAL("Equal", CompareFn.EQ),
  NOT_EQUAL("NotEqual", CompareFn.NE),
  LESS("Less", CompareFn.LT),
  LESS_EQUAL("LessEqual", CompareFn.LE),
  GREATER("Greater", CompareFn.GT),
  GREATER_EQUAL("GreaterEqual", CompareFn.GE);

  private final String type;
  private final CompareFn fn;

  CompareOp(String type, CompareFn fn) {
    this.type = type;
    this.fn = fn;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    DType t = BinaryOp.sameType(op.input(0), op.input(1));
    if (!fn.supports(t)) {
      throw new IllegalArgumentException("no " + type + " kernel for type " + t);
    }
    return List.of(TensorSpec.of(DType.BOOL, Broadcast.shape(op.input(0).shape(), op.input(1).shape())));
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> {
      BinaryOp.checkBroadcast(ctx, DType.BOOL);
      ctx.setOutput(0, Elementwise.compare(fn, ctx.input(0), ctx.input(1)));
    };
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  public Output create(Scope s, Operand x, Operand y) {
    return s.opBuilder(this).addInput(x).addInput(y).setAttr("T", x.dtype()).build().output(0);
  }
}
