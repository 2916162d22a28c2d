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

/**
 * BiasAdd: {@code value [..., C] + bias [C]}, the bias added to every row. Only the NHWC layout
 * (channels last) is supported, which is what dense layers produce.
 */
public enum BiasAdd implements OpDef {
  DEF;

  @Override
  public String type() {
    return "BiasAdd";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    requireNhwc(op);
    DType t = NnChecks.sameFloating(op.input(0), "value", op.input(1), "bias");
    Shape value = op.input(0).shape();
    Shape bias = op.input(1).shape();
    NnChecks.rankAtLeast(value, 2, "value");
    NnChecks.rank(bias, 1, "bias");
    if (!value.hasKnownRank()) {
      return List.of(TensorSpec.of(t, value));
    }
    long channels = bias.hasKnownRank() ? bias.size(0) : -1;
    long c = NnChecks.mergeDim(value.size(-1), channels, "Dimensions must be equal, but are "
        + value.size(-1) + " and " + channels + ": bias " + bias + " must match the last dimension of value " + value);
    long[] dims = value.toArray();
    dims[dims.length - 1] = c;
    return List.of(TensorSpec.of(t, Shape.of(dims)));
  }

  @Override
  public Kernel kernel(Operation op) {
    return BiasAdd::compute;
  }

  private static void compute(KernelContext ctx) {
    Tensor value = ctx.input(0);
    Tensor bias = ctx.input(1);
    int c = bias.size();
    if (value.rank() < 2 || bias.rank() != 1 || value.shape().dim(-1) != c) {
      throw StatusException.invalidArgument("Biases must be 1-D and match the last dimension of value: value "
          + value.shape() + ", bias " + bias.shape());
    }
    int n = value.size();
    switch (value.dtype()) {
      case FLOAT32 -> {
        float[] x = value.floatData();
        float[] bv = bias.floatData();
        float[] y = new float[n];
        if (n >= NativeKernels.MIN_LENGTH && NativeKernels.chosen()) {
          NativeKernels.biasAdd(x, bv, y, n, c); // at C1 only: C's vector loop, the same sums
        } else {
          for (int row = 0; row < n; row += c) {
            for (int j = 0; j < c; j++) {
              y[row + j] = x[row + j] + bv[j];
            }
          }
        }
        ctx.setOutput(0, Tensor.wrap(DType.FLOAT32, value.shape(), y));
      }
      case FLOAT64 -> {
        double[] x = value.doubleData();
        double[] bv = bias.doubleData();
        double[] y = new double[n];
        for (int row = 0; row < n; row += c) {
          for (int j = 0; j < c; j++) {
            y[row + j] = x[row + j] + bv[j];
          }
        }
        ctx.setOutput(0, Tensor.wrap(DType.FLOAT64, value.shape(), y));
      }
      default -> throw NnChecks.unsupported(value.dtype());
    }
  }

  /** y = x + b (b broadcast over rows): dx = dy, db = Σ dy over every axis but the last. */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      Output dy = grads.get(0);
      return List.<Operand>of(dy, BiasAddGrad.create(tf.scope(), dy));
    };
  }

  static void requireNhwc(Operation op) {
    String format = op.hasAttr("data_format") ? op.attrString("data_format") : "NHWC";
    if (!format.equals("NHWC")) {
      throw new IllegalArgumentException("data_format " + format + " is not supported, only NHWC");
    }
  }

  public static Output create(Scope s, Operand value, Operand bias) {
    return s.opBuilder(DEF).addInput(value).addInput(bias)
        .setAttr("T", value.dtype()).setAttr("data_format", "NHWC").build().output(0);
  }
}
