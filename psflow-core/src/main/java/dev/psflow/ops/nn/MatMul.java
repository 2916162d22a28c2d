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
import dev.psflow.tensor.Gemm;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;

/**
 * MatMul: {@code op(a) · op(b)} for rank-2 float or double matrices, where {@code op} transposes
 * when {@code transpose_a} / {@code transpose_b} is set. The transposes are folded into the GEMM
 * call: inputs are never copied, only the output is allocated.
 */
public enum MatMul implements OpDef {
  DEF;

  @Override
  public String type() {
    return "MatMul";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    DType t = NnChecks.sameFloating(op.input(0), "a", op.input(1), "b");
    Shape a = op.input(0).shape();
    Shape b = op.input(1).shape();
    NnChecks.rank(a, 2, "a");
    NnChecks.rank(b, 2, "b");
    boolean ta = op.attrBool("transpose_a");
    boolean tb = op.attrBool("transpose_b");
    long m = a.hasKnownRank() ? a.size(ta ? 1 : 0) : -1;
    long ka = a.hasKnownRank() ? a.size(ta ? 0 : 1) : -1;
    long kb = b.hasKnownRank() ? b.size(tb ? 1 : 0) : -1;
    long n = b.hasKnownRank() ? b.size(tb ? 0 : 1) : -1;
    NnChecks.mergeDim(ka, kb, "Dimensions must be equal, but are " + ka + " and " + kb
        + " for MatMul with input shapes: " + a + ", " + b + transposes(ta, tb));
    return List.of(TensorSpec.of(t, Shape.of(m, n)));
  }

  @Override
  public Kernel kernel(Operation op) {
    boolean ta = op.attrBool("transpose_a");
    boolean tb = op.attrBool("transpose_b");
    return ctx -> compute(ctx, ta, tb);
  }

  private static void compute(KernelContext ctx, boolean ta, boolean tb) {
    Tensor a = ctx.input(0);
    Tensor b = ctx.input(1);
    NnChecks.requireRank(a.shape(), 2, "In[0]");
    NnChecks.requireRank(b.shape(), 2, "In[1]");
    int m = a.shape().dim(ta ? 1 : 0);
    int k = a.shape().dim(ta ? 0 : 1);
    int n = b.shape().dim(tb ? 0 : 1);
    if (b.shape().dim(tb ? 1 : 0) != k) {
      throw StatusException.invalidArgument("Matrix size-incompatible: In[0]: " + a.shape()
          + ", In[1]: " + b.shape() + transposes(ta, tb));
    }
    // Row-major storage: the leading dimension is the stored width whether or not op() transposes
    // (at least 1, as GEMM requires even of empty matrices).
    int lda = Math.max(1, a.shape().dim(1));
    int ldb = Math.max(1, b.shape().dim(1));
    int ldc = Math.max(1, n);
    Shape out = Shape.of(m, n);
    ctx.checkOutputSize(0, a.dtype(), out);
    switch (a.dtype()) {
      case FLOAT32 -> {
        float[] c = new float[m * n];
        Gemm.sgemmIntoZeros(ta, tb, m, n, k, a.floatData(), 0, lda, b.floatData(), 0, ldb, c, 0, ldc);
        ctx.setOutput(0, Tensor.wrap(DType.FLOAT32, out, c));
      }
      case FLOAT64 -> {
        double[] c = new double[m * n];
        Gemm.dgemm(ta, tb, m, n, k, a.doubleData(), 0, lda, b.doubleData(), 0, ldb, c, 0, ldc, false);
        ctx.setOutput(0, Tensor.wrap(DType.FLOAT64, out, c));
      }
      default -> throw NnChecks.unsupported(a.dtype());
    }
  }

  private static String transposes(boolean ta, boolean tb) {
    return ta || tb ? " (transpose_a=" + ta + ", transpose_b=" + tb + ")" : "";
  }

  /**
   * As TensorFlow's _MatMulGrad, with transposed MatMuls instead of Transpose ops. For C = A·B:
   * dA = dC·Bᵀ, dB = Aᵀ·dC; with A stored transposed, dAᵀ = B·dCᵀ; with B stored transposed,
   * dBᵀ = dCᵀ·A; with both, dAᵀ = Bᵀ·dCᵀ and dBᵀ = dCᵀ·Aᵀ.
   */
  @Override
  public boolean isExpensive() {
    return true;
  }

  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      Output a = op.input(0);
      Output b = op.input(1);
      Output dc = grads.get(0);
      boolean ta = op.attrBool("transpose_a");
      boolean tb = op.attrBool("transpose_b");
      Output da;
      Output db;
      if (!ta && !tb) {
        da = tf.matMul(dc, b, false, true);
        db = tf.matMul(a, dc, true, false);
      } else if (!ta) {
        da = tf.matMul(dc, b, false, false);
        db = tf.matMul(dc, a, true, false);
      } else if (!tb) {
        da = tf.matMul(b, dc, false, true);
        db = tf.matMul(a, dc, false, false);
      } else {
        da = tf.matMul(b, dc, true, true);
        db = tf.matMul(dc, a, true, true);
      }
      return List.<Operand>of(da, db);
    };
  }

  public static Output create(Scope s, Operand a, Operand b, boolean transposeA, boolean transposeB) {
    return s.opBuilder(DEF).addInput(a).addInput(b)
        .setAttr("transpose_a", transposeA).setAttr("transpose_b", transposeB)
        .setAttr("T", a.dtype()).build().output(0);
  }
}
