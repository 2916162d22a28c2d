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
 * ResourceApplyRMSProp and ResourceSparseApplyRMSProp, in place, as TensorFlow's kernels:
 *
 * <pre>
 * ms  += (g² − ms) · (1 − rho)
 * mom  = mom · momentum + lr · g / √(ms + ε)
 * var −= mom
 * </pre>
 *
 * The sparse form updates only the rows named by {@code indices} (repeated indices summed first).
 */
public enum ApplyRmsProp implements OpDef {
  DENSE(new ApplySignature("ResourceApplyRMSProp",
      List.of("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"), 3, false)),
  SPARSE(new ApplySignature("ResourceSparseApplyRMSProp",
      List.of("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"), 3, false));

  private final ApplySignature sig;

  ApplyRmsProp(ApplySignature sig) {
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
      VariableResource ms = TrainingChecks.variable(ctx, 1, t);
      VariableResource mom = TrainingChecks.variable(ctx, 2, t);
      double lr = TrainingChecks.scalar(ctx, 3, "lr");
      double rho = TrainingChecks.scalar(ctx, 4, "rho");
      double momentum = TrainingChecks.scalar(ctx, 5, "momentum");
      double epsilon = TrainingChecks.scalar(ctx, 6, "epsilon");
      Tensor w = var.valueForUpdate();
      Tensor mst = TrainingChecks.slotValue(var, w, ms);
      Tensor momt = TrainingChecks.slotValue(var, w, mom);
      Tensor g = ctx.input(7);
      if (!sparse) {
        TrainingChecks.requireGradShape(var, w, g);
        update(w, mst, momt, 0, g, 0, w.size(), lr, rho, momentum, epsilon);
        return;
      }
      SparseRows rows = SparseRows.of(var, w, g, ctx.input(8));
      for (int k = 0; k < rows.count(); k++) {
        update(w, mst, momt, rows.varOffset(k), rows.grad(), rows.gradOffset(k), rows.rowLength(), lr, rho, momentum,
            epsilon);
      }
    });
  }

  private static void update(Tensor w, Tensor ms, Tensor mom, int off, Tensor g, int gOff, int len, double lr,
      double rho, double momentum, double epsilon) {
    switch (w.dtype()) {
      case FLOAT32 -> update32(w.floatData(), ms.floatData(), mom.floatData(), off, g.floatData(), gOff, len,
          (float) lr, (float) (1 - rho), (float) momentum, (float) epsilon);
      case FLOAT64 -> {
        double[] wd = w.doubleData();
        double[] sd = ms.doubleData();
        double[] md = mom.doubleData();
        double[] gd = g.doubleData();
        double decay = 1 - rho;
        for (int i = 0; i < len; i++) {
          int k = off + i;
          double gi = gd[gOff + i];
          double si = Denormals.flush(sd[k] + (gi * gi - sd[k]) * decay);
          double mi = Denormals.flush(md[k] * momentum + gi * lr / Math.sqrt(si + epsilon));
          sd[k] = si;
          md[k] = mi;
          wd[k] -= mi;
        }
      }
      default -> throw StatusException.invalidArgument("RMSProp needs float or double variables, got " + w.dtype());
    }
  }

  // Vector API for float when the JVM has it: see ApplyAdam on why a plain loop over two offsets stays scalar.
  static void update32(float[] w, float[] ms, float[] mom, int off, float[] g, int gOff, int len, float lr,
      float decay, float momentum, float eps) {
    int done = VectorSupport.AVAILABLE
        ? Vectorized.update32(w, ms, mom, off, g, gOff, len, lr, decay, momentum, eps) : 0;
    scalar32(w, ms, mom, off, g, gOff, done, len, lr, decay, momentum, eps);
  }

  /** Elements [from, len) one by one: the tail after the vector lanes, or all of them without the Vector API. */
  static void scalar32(float[] w, float[] ms, float[] mom, int off, float[] g, int gOff, int from, int len, float lr,
      float decay, float momentum, float eps) {
    for (int i = from; i < len; i++) {
      int k = off + i;
      float gi = g[gOff + i];
      float si = Denormals.flush(ms[k] + (gi * gi - ms[k]) * decay);
      float mi = Denormals.flush(mom[k] * momentum + gi * lr / (float) Math.sqrt(si + eps));
      ms[k] = si;
      mom[k] = mi;
      w[k] -= mi;
    }
  }

  /**
   * The float update over whole vectors. A class of its own because it links the Vector API: only code that
   * has checked {@link VectorSupport#AVAILABLE} reaches it.
   */
  private static final class Vectorized {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    /** Updates elements [0, F.loopBound(len)) and returns that bound. */
    static int update32(float[] w, float[] ms, float[] mom, int off, float[] g, int gOff, int len, float lr,
        float decay, float momentum, float eps) {
      int i = 0;
      for (int bound = F.loopBound(len); i < bound; i += F.length()) {
        FloatVector gi = FloatVector.fromArray(F, g, gOff + i);
        FloatVector si = FloatVector.fromArray(F, ms, off + i);
        si = VectorDenormals.flush(si.add(gi.mul(gi).sub(si).mul(decay)));
        FloatVector mi = VectorDenormals.flush(
            FloatVector.fromArray(F, mom, off + i).mul(momentum).add(gi.mul(lr).div(si.add(eps).sqrt())));
        si.intoArray(ms, off + i);
        mi.intoArray(mom, off + i);
        FloatVector.fromArray(F, w, off + i).sub(mi).intoArray(w, off + i);
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

  /** Builds the op; {@code in} are the inputs in TensorFlow's order (handles for var, ms and mom). */
  public Operation create(Scope s, List<? extends Operand> in, boolean useLocking) {
    return sig.build(this, s, in, useLocking, false);
  }
}
