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
import dev.psflow.tensor.Denormals;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import dev.psflow.tensor.VectorDenormals;
import dev.psflow.tensor.VectorSupport;
import java.util.List;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * ResourceApplyMomentum and ResourceSparseApplyMomentum, in place, as TensorFlow's kernels:
 *
 * <pre>
 * accum = accum · momentum + g
 * var  −= lr · accum                                use_nesterov: var −= lr · g + lr · momentum · accum
 * </pre>
 *
 * The sparse form updates only the rows named by {@code indices} (repeated indices summed first).
 */
public enum ApplyMomentum implements OpDef {
  DENSE(new ApplySignature("ResourceApplyMomentum", List.of("var", "accum", "lr", "grad", "momentum"), 2, true)),
  SPARSE(new ApplySignature(
      "ResourceSparseApplyMomentum", List.of("var", "accum", "lr", "grad", "indices", "momentum"), 2, true));

  private final ApplySignature sig;

  ApplyMomentum(ApplySignature sig) {
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
    boolean nesterov = op.attrBool("use_nesterov", false);
    boolean sparse = sig.sparse();
    int momentumInput = sig.inputs().indexOf("momentum");
    return TrainingChecks.withVariable(t, op.attrBool("use_locking", false), (ctx, var) -> {
      VariableResource accum = TrainingChecks.variable(ctx, 1, t);
      double lr = TrainingChecks.scalar(ctx, 2, "lr");
      double momentum = TrainingChecks.scalar(ctx, momentumInput, "momentum");
      Tensor w = var.valueForUpdate();
      Tensor a = TrainingChecks.slotValue(var, w, accum);
      Tensor g = ctx.input(3);
      if (!sparse) {
        TrainingChecks.requireGradShape(var, w, g);
        update(w, a, 0, g, 0, w.size(), lr, momentum, nesterov);
        return;
      }
      SparseRows rows = SparseRows.of(var, w, g, ctx.input(4));
      for (int k = 0; k < rows.count(); k++) {
        update(w, a, rows.varOffset(k), rows.grad(), rows.gradOffset(k), rows.rowLength(), lr, momentum, nesterov);
      }
    });
  }

  private static void update(Tensor w, Tensor a, int off, Tensor g, int gOff, int len, double lr, double momentum,
      boolean nesterov) {
    switch (w.dtype()) {
      case FLOAT32 -> update32(w.floatData(), a.floatData(), off, g.floatData(), gOff, len, (float) lr,
          (float) momentum, nesterov);
      case FLOAT64 -> update64(w.doubleData(), a.doubleData(), off, g.doubleData(), gOff, len, lr, momentum, nesterov);
      default -> throw StatusException.invalidArgument("Momentum needs float or double variables, got " + w.dtype());
    }
  }

  // Vector API for float when the JVM has it: see ApplyAdam on why a plain loop over two offsets stays scalar.
  static void update32(float[] w, float[] a, int off, float[] g, int gOff, int len, float lr, float momentum,
      boolean nesterov) {
    int done = VectorSupport.AVAILABLE ? Vectorized.update32(w, a, off, g, gOff, len, lr, momentum, nesterov) : 0;
    scalar32(w, a, off, g, gOff, done, len, lr, momentum, nesterov);
  }

  /** Elements [from, len) one by one: the tail after the vector lanes, or all of them without the Vector API. */
  static void scalar32(float[] w, float[] a, int off, float[] g, int gOff, int from, int len, float lr,
      float momentum, boolean nesterov) {
    for (int i = from; i < len; i++) {
      int k = off + i;
      float gi = g[gOff + i];
      float ai = Denormals.flush(a[k] * momentum + gi);
      a[k] = ai;
      w[k] -= nesterov ? gi * lr + ai * momentum * lr : ai * lr;
    }
  }

  private static void update64(double[] w, double[] a, int off, double[] g, int gOff, int len, double lr,
      double momentum, boolean nesterov) {
    if (!nesterov) {
      for (int i = 0; i < len; i++) {
        int k = off + i;
        double ai = Denormals.flush(a[k] * momentum + g[gOff + i]);
        a[k] = ai;
        w[k] -= ai * lr;
      }
    } else {
      for (int i = 0; i < len; i++) {
        int k = off + i;
        double gi = g[gOff + i];
        double ai = Denormals.flush(a[k] * momentum + gi);
        a[k] = ai;
        w[k] -= gi * lr + ai * momentum * lr;
      }
    }
  }

  /**
   * The float update over whole vectors. A class of its own because it links the Vector API: only code that
   * has checked {@link VectorSupport#AVAILABLE} reaches it.
   */
  private static final class Vectorized {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    /** Updates elements [0, F.loopBound(len)) and returns that bound. */
    static int update32(float[] w, float[] a, int off, float[] g, int gOff, int len, float lr, float momentum,
        boolean nesterov) {
      int i = 0;
      for (int bound = F.loopBound(len); i < bound; i += F.length()) {
        FloatVector gi = FloatVector.fromArray(F, g, gOff + i);
        FloatVector ai = VectorDenormals.flush(FloatVector.fromArray(F, a, off + i).mul(momentum).add(gi));
        ai.intoArray(a, off + i);
        FloatVector step = nesterov ? gi.mul(lr).add(ai.mul(momentum).mul(lr)) : ai.mul(lr);
        FloatVector.fromArray(F, w, off + i).sub(step).intoArray(w, off + i);
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
  public Operation create(Scope s, List<? extends Operand> in, boolean useLocking, boolean useNesterov) {
    return sig.build(this, s, in, useLocking, useNesterov);
  }
}
