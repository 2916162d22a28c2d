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
import dev.psflow.tensor.NativeKernels;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;

/** BiasAddGrad: the bias gradient of BiasAdd, {@code out_backprop [..., C]} summed to {@code [C]} (NHWC). */
public enum BiasAddGrad implements OpDef {
  DEF;

  @Override
  public String type() {
    return "BiasAddGrad";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    BiasAdd.requireNhwc(op);
    DType t = NnChecks.floating(op.input(0), "out_backprop");
    Shape s = op.input(0).shape();
    NnChecks.rankAtLeast(s, 2, "out_backprop");
    return List.of(TensorSpec.of(t, Shape.of(s.hasKnownRank() ? s.size(-1) : -1)));
  }

  @Override
  public Kernel kernel(Operation op) {
    return BiasAddGrad::compute;
  }

  private static void compute(KernelContext ctx) {
    Tensor dy = ctx.input(0);
    if (dy.rank() < 2) {
      throw StatusException.invalidArgument("out_backprop must be at least 2-D, got shape " + dy.shape());
    }
    int c = dy.shape().dim(-1);
    int n = dy.size();
    switch (dy.dtype()) {
      case FLOAT32 -> {
        float[] g = dy.floatData();
        float[] db = new float[c];
        if (n >= NativeKernels.MIN_LENGTH && NativeKernels.chosen()) {
          NativeKernels.biasAddGrad(g, db, n, c); // at C1 only: C's vector loop, each column in the same order
        } else {
          for (int row = 0; row < n; row += c) {
            for (int j = 0; j < c; j++) {
              db[j] += g[row + j];
            }
          }
        }
        ctx.setOutput(0, Tensor.wrap(DType.FLOAT32, Shape.of(c), db));
      }
      case FLOAT64 -> {
        double[] g = dy.doubleData();
        double[] db = new double[c];
        for (int row = 0; row < n; row += c) {
          for (int j = 0; j < c; j++) {
            db[j] += g[row + j];
          }
        }
        ctx.setOutput(0, Tensor.wrap(DType.FLOAT64, Shape.of(c), db));
      }
      default -> throw NnChecks.unsupported(dy.dtype());
    }
  }

  /**
   * db[c] = Σ_rows dy[row, c] is linear in dy, so d(dy)[row, c] = d(db)[c]: the incoming gradient
   * broadcast back over the rows.
   */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> List.<Operand>of(tf.broadcastTo(grads.get(0), tf.shape(op.input(0))));
  }

  public static Output create(Scope s, Operand outBackprop) {
    return s.opBuilder(DEF).addInput(outBackprop)
        .setAttr("T", outBackprop.dtype()).setAttr("data_format", "NHWC").build().output(0);
  }
}
