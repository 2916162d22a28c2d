package dev.psflow.ops.nn;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.KernelContext;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import java.util.Arrays;
import java.util.List;

/** ReluGrad: {@code gradients * (features > 0)}, the backward pass of Relu (0 at features = 0). */
public enum ReluGrad implements OpDef {
  DEF;

  @Override
  public String type() {
    return "ReluGrad";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    DType t = NnChecks.sameFloating(op.input(0), "gradients", op.input(1), "features");
    return List.of(TensorSpec.of(t, op.input(0).shape().mergeWith(op.input(1).shape())));
  }

  @Override
  public Kernel kernel(Operation op) {
    return ReluGrad::compute;
  }

  private static void compute(KernelContext ctx) {
    Tensor dy = ctx.input(0);
    Tensor x = ctx.input(1);
    if (!dy.shape().equals(x.shape())) {
      throw StatusException.invalidArgument("gradients and features must have the same shape, got "
          + dy.shape() + " and " + x.shape());
    }
    int n = x.size();
    switch (x.dtype()) {
      case FLOAT32 -> {
        float[] g = dy.floatData();
        float[] f = x.floatData();
        float[] dx = new float[n];
        Relu.wherePositive(f, g, dx);
        ctx.setOutput(0, Tensor.wrap(DType.FLOAT32, x.shape(), dx));
      }
      case FLOAT64 -> {
        double[] g = dy.doubleData();
        double[] f = x.doubleData();
        double[] dx = new double[n];
        for (int i = 0; i < n; i++) {
          dx[i] = f[i] > 0 ? g[i] : 0d;
        }
        ctx.setOutput(0, Tensor.wrap(DType.FLOAT64, x.shape(), dx));
      }
      default -> throw NnChecks.unsupported(x.dtype());
    }
  }

  /**
   * Linear in {@code gradients} with the mask fixed: d(gradients) = ReluGrad(d(out), features).
   * The mask is piecewise constant in {@code features}, whose gradient is 0 (returned as none).
   */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) ->
        Arrays.<Operand>asList(create(tf.scope(), grads.get(0), op.input(1)), null);
  }

  public static Output create(Scope s, Operand gradients, Operand features) {
    return s.opBuilder(DEF).addInput(gradients).addInput(features)
        .setAttr("T", gradients.dtype()).build().output(0);
  }
}
