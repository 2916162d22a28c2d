package dev.psflow.ops.queue;

import dev.psflow.exec.StatusException;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.NativeKernels;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;

/**
 * The aggregate of a ConditionalAccumulator: the element-wise sum of dense gradients, all of one
 * shape (compatible with the declared one), divided by their number when taken (MEAN).
 * Thread-safe through {@link Accumulator}'s lock.
 */
public final class DenseAccumulator extends Accumulator<Tensor> {
  private Tensor sum; // owned: a copy of the first gradient, updated in place

  public DenseAccumulator(String name, DType dtype, Shape shape, String reductionType) {
    super(name, dtype, shape, reductionType);
  }

  @Override
  protected void validate(Tensor g, int count) {
    if (g.dtype() != dtype) {
      throw StatusException.invalidArgument("accumulator " + name + " holds " + dtype + " gradients, got " + g.dtype());
    }
    Shape expected = count > 0 ? sum.shape() : shape;
    if (!expected.isCompatibleWith(g.shape())) {
      throw StatusException.invalidArgument("Shape mismatch: accumulator " + name + " expected gradient of shape "
          + expected + ", got " + g.shape());
    }
  }

  @Override
  protected void add(Tensor g, int count) {
    if (count == 0) {
      sum = g.copy();
      return;
    }
    int n = g.size();
    switch (dtype) {
      case FLOAT32 -> {
        float[] a = sum.floatData();
        float[] b = g.floatData();
        if (n >= NativeKernels.MIN_LENGTH && NativeKernels.chosen()) {
          NativeKernels.add(a, b, n); // a ps at C1: psflow's C kernel, the same sums in vector registers
          return;
        }
        for (int i = 0; i < n; i++) {
          a[i] += b[i];
        }
      }
      case FLOAT64 -> {
        double[] a = sum.doubleData();
        double[] b = g.doubleData();
        for (int i = 0; i < n; i++) {
          a[i] += b[i];
        }
      }
      default -> throw new AssertionError(dtype); // the constructor admits floating types only
    }
  }

  @Override
  protected Tensor takeAggregate(int count) {
    Tensor out = sum;
    sum = null;
    if (mean && count > 1) {
      int n = out.size();
      switch (dtype) {
        case FLOAT32 -> {
          float[] a = out.floatData();
          if (n >= NativeKernels.MIN_LENGTH && NativeKernels.chosen()) {
            NativeKernels.divide(a, count, n);
            return out;
          }
          for (int i = 0; i < n; i++) {
            a[i] /= count;
          }
        }
        case FLOAT64 -> {
          double[] a = out.doubleData();
          for (int i = 0; i < n; i++) {
            a[i] /= count;
          }
        }
        default -> throw new AssertionError(dtype);
      }
    }
    return out;
  }

  @Override
  public String describe() {
    return "ConditionalAccumulator " + name + " " + dtype + " " + shape;
  }
}
