package dev.psflow.ops.training;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.VariableResource;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import dev.psflow.tensor.VectorSupport;
import java.util.List;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * ResourceApplyAdagrad and ResourceSparseApplyAdagrad, in place, as TensorFlow's kernels:
 *
 * <pre>
 * accum += g²
 * var   −= lr · g / √accum
 * </pre>
 *
 * The sparse form updates only the rows named by {@code indices} (repeated indices summed first).
 */
public enum ApplyAdagrad implements OpDef {
  DENSE(new ApplySignature("ResourceApplyAdagrad", List.of("var", "accum", "lr", "grad"), 2, false)),
  SPARSE(new ApplySignature("ResourceSparseApplyAdagrad", List.of("var", "accum", "lr", "grad", "indices"), 2, false));

  private final ApplySignature sig;

  ApplyAdagrad(ApplySignature sig) {
    this.sig = sig;
  }

  @Override
  public String type() {
    return sig.type();
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    sig.check(op);
    return List.of();
  }

  @Override
  public Kernel kernel(Operation op) {
    DType t = op.attrType("T");
    boolean sparse = sig.sparse();
    return TrainingChecks.withVariable(t, op.attrBool("use_locking", false), (ctx, var) -> {
      VariableResource accum = TrainingChecks.variable(ctx, 1, t);
      double lr = TrainingChecks.scalar(ctx, 2, "lr");
      Tensor w = var.valueForUpdate();
      Tensor a = TrainingChecks.slotValue(var, w, accum);
      Tensor g = ctx.input(3);
      if (!sparse) {
        TrainingChecks.requireGradShape(var, w, g);
        update(w, a, 0, g, 0, w.size(), lr);
        return;
      }
      SparseRows rows = SparseRows.of(var, w, g, ctx.input(4));
      for (int k = 0; k < rows.count(); k++) {
        update(w, a, rows.varOffset(k), rows.grad(), rows.gradOffset(k), rows.rowLength(), lr);
      }
    });
  }

  private static void update(Tensor w, Tensor a, int off, Tensor g, int gOff, int len, double lr) {
    switch (w.dtype()) {
      case FLOAT32 -> update32(w.floatData(), a.floatData(), off, g.floatData(), gOff, len, (float) lr);
      case FLOAT64 -> {
        double[] wd = w.doubleData();
        double[] ad = a.doubleData();
        double[] gd = g.doubleData();
        for (int i = 0; i < len; i++) {
          int k = off + i;
          double gi = gd[gOff + i];
          double ai = ad[k] + gi * gi;
          ad[k] = ai;
          wd[k] -= gi * lr / Math.sqrt(ai);
        }
      }
      default -> throw StatusException.invalidArgument("Adagrad needs float or double variables, got " + w.dtype());
    }
  }

  // Vector API for float when the JVM has it: see ApplyAdam on why a plain loop over two offsets stays scalar.
  static void update32(float[] w, float[] a, int off, float[] g, int gOff, int len, float lr) {
    int done = VectorSupport.AVAILABLE ? Vectorized.update32(w, a, off, g, gOff, len, lr) : 0;
    scalar32(w, a, off, g, gOff, done, len, lr);
  }

  /** Elements [from, len) one by one: the tail after the vector lanes, or all of them without the Vector API. */
  static void scalar32(float[] w, float[] a, int off, float[] g, int gOff, int from, int len, float lr) {
    for (int i = from; i < len; i++) {
      int k = off + i;
      float gi = g[gOff + i];
      float ai = a[k] + gi * gi;
      a[k] = ai;
      w[k] -= gi * lr / (float) Math.sqrt(ai);
    }
  }

  /**
   * The float update over whole vectors. A class of its own because it links the Vector API: only code that
   * has checked {@link VectorSupport#AVAILABLE} reaches it.
   */
  private static final class Vectorized {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    /** Updates elements [0, F.loopBound(len)) and returns that bound. */
    static int update32(float[] w, float[] a, int off, float[] g, int gOff, int len, float lr) {
      int i = 0;
      for (int bound = F.loopBound(len); i < bound; i += F.length()) {
        FloatVector gi = FloatVector.fromArray(F, g, gOff + i);
        FloatVector ai = FloatVector.fromArray(F, a, off + i).add(gi.mul(gi));
        ai.intoArray(a, off + i);
        FloatVector.fromArray(F, w, off + i).sub(gi.mul(lr).div(ai.sqrt())).intoArray(w, off + i);
      }
      return i;
    }
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  @Override
  public boolean isExpensive() {
    return true;
  }

  @Override
  public boolean isStateful() {
    return true;
  }

  /** Builds the op; {@code in} are the inputs in TensorFlow's order (handles for var and accum). */
  public Operation create(Scope s, List<? extends Operand> in, boolean useLocking) {
    return sig.build(this, s, in, useLocking, false);
  }
}
