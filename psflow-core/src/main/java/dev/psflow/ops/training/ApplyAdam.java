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
import dev.psflow.tensor.Denormals;
import dev.psflow.tensor.IntraOpThreads;
import dev.psflow.tensor.NativeKernels;
import dev.psflow.tensor.Tensor;
import dev.psflow.tensor.VectorDenormals;
import dev.psflow.tensor.VectorSupport;
import java.util.List;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * ResourceApplyAdam and its lazy sparse form ResourceSparseApplyAdam: one fused pass updating the
 * first and second moments and the variable in place (Kingma and Ba, as TensorFlow's kernel):
 *
 * <pre>
 * lr_t = lr · √(1 − β2^t) / (1 − β1^t)            once per call
 * m   += (g − m) · (1 − β1)
 * v   += (g² − v) · (1 − β2)
 * var −= lr_t · m / (√v + ε)                       use_nesterov: lr_t · (g·(1 − β1) + β1·m) / (√v + ε)
 * </pre>
 *
 * <p>ResourceSparseApplyAdam is <em>lazy</em>, like {@code tf.contrib.opt.LazyAdamOptimizer}: it
 * updates m, v and the variable only in the rows named by {@code indices} (repeated indices summed
 * first); rows a step does not touch keep moments that did not decay. It is not one of
 * TensorFlow's kernels (TensorFlow builds lazy Adam from gathers and scatters); it has
 * ResourceApplyAdam's inputs plus {@code indices} and no use_nesterov.
 */
public enum ApplyAdam implements OpDef {
  DENSE(new ApplySignature("ResourceApplyAdam", List.of("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1",
      "beta2", "epsilon", "grad"), 3, true)),
  SPARSE(new ApplySignature("ResourceSparseApplyAdam", List.of("var", "m", "v", "beta1_power", "beta2_power", "lr",
      "beta1", "beta2", "epsilon", "grad", "indices"), 3, false));

  private final ApplySignature sig;

  ApplyAdam(ApplySignature sig) {
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
    return TrainingChecks.withVariable(t, op.attrBool("use_locking", false), (ctx, var) -> {
      VariableResource m = TrainingChecks.variable(ctx, 1, t);
      VariableResource v = TrainingChecks.variable(ctx, 2, t);
      double beta1Power = TrainingChecks.scalar(ctx, 3, "beta1_power");
      double beta2Power = TrainingChecks.scalar(ctx, 4, "beta2_power");
      double lr = TrainingChecks.scalar(ctx, 5, "lr");
      double beta1 = TrainingChecks.scalar(ctx, 6, "beta1");
      double beta2 = TrainingChecks.scalar(ctx, 7, "beta2");
      double epsilon = TrainingChecks.scalar(ctx, 8, "epsilon");
      if (this == DENSE) {
        apply(var, m, v, beta1Power, beta2Power, lr, beta1, beta2, epsilon, ctx.input(9), nesterov);
      } else {
        applySparse(var, m, v, beta1Power, beta2Power, lr, beta1, beta2, epsilon, ctx.input(9), ctx.input(10));
      }
    });
  }

  /**
   * The dense update straight on the variables' storage, without locking (but when a reader holds
   * the variable's value: then into a new array, under the variable's lock, {@link
   * VariableResource#rewrite}): what the kernel runs once it has found its inputs (public for
   * benchmarks). INVALID_ARGUMENT on mismatched shapes, FAILED_PRECONDITION naming a variable that
   * has no value.
   */
  public static void apply(VariableResource var, VariableResource m, VariableResource v, double beta1Power,
      double beta2Power, double lr, double beta1, double beta2, double epsilon, Tensor grad, boolean useNesterov) {
    double lrT = lr * Math.sqrt(1 - beta2Power) / (1 - beta1Power);
    // Every element is rewritten: when a reader holds the value, the update writes the new one to a
    // new tensor as it goes, rather than copying the old one first (VariableResource.rewrite).
    var.rewrite((from, to) -> {
      Tensor mt = TrainingChecks.slotValue(var, from, m);
      Tensor vt = TrainingChecks.slotValue(var, from, v);
      TrainingChecks.requireGradShape(var, from, grad);
      update(from, to, mt, vt, 0, grad, 0, from.size(), lrT, beta1, beta2, epsilon, useNesterov);
    });
  }

  /** The lazy sparse update: only the rows named by {@code indices}. */
  public static void applySparse(VariableResource var, VariableResource m, VariableResource v, double beta1Power,
      double beta2Power, double lr, double beta1, double beta2, double epsilon, Tensor grad, Tensor indices) {
    Tensor w = var.valueForUpdate();
    Tensor mt = TrainingChecks.slotValue(var, w, m);
    Tensor vt = TrainingChecks.slotValue(var, w, v);
    SparseRows rows = SparseRows.of(var, w, grad, indices);
    double lrT = lr * Math.sqrt(1 - beta2Power) / (1 - beta1Power);
    for (int k = 0; k < rows.count(); k++) {
      update(w, w, mt, vt, rows.varOffset(k), rows.grad(), rows.gradOffset(k), rows.rowLength(), lrT, beta1, beta2,
          epsilon, false);
    }
  }

  /** Reads the variable's elements from {@code w} and writes them to {@code wOut}, which may be {@code w}. */
  private static void update(Tensor w, Tensor wOut, Tensor m, Tensor v, int off, Tensor g, int gOff, int len,
      double lrT, double beta1, double beta2, double epsilon, boolean nesterov) {
    switch (w.dtype()) {
      case FLOAT32 -> update32(w.floatData(), wOut.floatData(), m.floatData(), v.floatData(), off, g.floatData(), gOff,
          len, (float) lrT, (float) beta1, (float) beta2, (float) epsilon, nesterov);
      case FLOAT64 -> update64(w.doubleData(), wOut.doubleData(), m.doubleData(), v.doubleData(), off, g.doubleData(),
          gOff, len, lrT, beta1, beta2, epsilon, nesterov);
      default -> throw StatusException.invalidArgument("Adam needs float or double variables, got " + w.dtype());
    }
  }

  // The Vector API rather than a plain loop when the JVM has it: with the variable and the gradient at different
  // offsets (sparse rows) C2 cannot prove the arrays apart and leaves the loop scalar, about 5x slower. The lanes
  // compute exactly what the scalar loop does (no fma), so dense and sparse agree bit for bit.
  // Without C2 (a ps task), psflow's C kernel where it loaded: the same arithmetic in vector registers, 13x faster
  // than scalar32 at C1 over the replica model's parameters. Rows shorter than NativeKernels.MIN_LENGTH stay in Java.
  static void update32(float[] w, float[] wOut, float[] m, float[] v, int off, float[] g, int gOff, int len,
      float lrT, float beta1, float beta2, float eps, boolean nesterov) {
    update32InParts((int) Math.min(IntraOpThreads.THREADS, len / PARALLEL_ELEMENTS), w, wOut, m, v, off, g, gOff, len,
        lrT, beta1, beta2, eps, nesterov);
  }

  /**
   * Elements per part below which an update stays on its calling thread: 1 MB of each of the five
   * arrays it streams, ~0.2 ms. The replica model's variables stay whole up to 400 hidden units;
   * at 1600 the hidden layer's 1.25 million weights took 1.3 ms a local step on one thread,
   * memory-bound, and in two parts psflow mnist ran 1.06x the steps/sec (5 alternated pairs; a
   * distributed job on 2 cores level).
   */
  static final int PARALLEL_ELEMENTS = 1 << 18;

  /**
   * {@link #update32} in at most {@code parts} ranges over {@link IntraOpThreads}: every element is
   * computed on its own, the same in any range, so the split changes no bit.
   */
  static void update32InParts(int parts, float[] w, float[] wOut, float[] m, float[] v, int off, float[] g, int gOff,
      int len, float lrT, float beta1, float beta2, float eps, boolean nesterov) {
    if (parts <= 1) {
      update32Range(w, wOut, m, v, off, g, gOff, len, lrT, beta1, beta2, eps, nesterov);
      return;
    }
    int step = Math.ceilDiv(Math.ceilDiv(len, parts), 64) * 64; // whole cache lines, whole vectors
    IntraOpThreads.run(Math.ceilDiv(len, step), part -> {
      int from = part * step;
      update32Range(w, wOut, m, v, off + from, g, gOff + from, Math.min(step, len - from), lrT, beta1, beta2, eps,
          nesterov);
    });
  }

  private static void update32Range(float[] w, float[] wOut, float[] m, float[] v, int off, float[] g, int gOff,
      int len, float lrT, float beta1, float beta2, float eps, boolean nesterov) {
    int done = 0;
    if (VectorSupport.AVAILABLE) {
      done = Vectorized.update32(w, wOut, m, v, off, g, gOff, len, lrT, beta1, beta2, eps, nesterov);
    } else if (len >= NativeKernels.MIN_LENGTH && NativeKernels.available()) {
      NativeKernels.applyAdam(w, wOut, m, v, off, g, gOff, len, lrT, beta1, beta2, eps, nesterov);
      return;
    }
    scalar32(w, wOut, m, v, off, g, gOff, done, len, lrT, beta1, beta2, eps, nesterov);
  }

  /**
   * Elements [from, len) one by one: the tail after the vector lanes, or all of them without the
   * Vector API (a ps task, which runs at C1 only) where psflow's native kernels did not load, and
   * rows too short for them. Written for C1 as much as for C2: one index per
   * element and the moments read once: under C1 the MNIST hidden layer's 78,400 weights took ~0.8x
   * the time of the straightforward loop (0.66 against 0.83 ms, alternating in one JVM; with
   * Denormals' bit test). Taking Nesterov's choice out of the loop bought 1.5% more, not worth a
   * second copy of it.
   */
  static void scalar32(float[] w, float[] wOut, float[] m, float[] v, int off, float[] g, int gOff, int from, int len,
      float lrT, float beta1, float beta2, float eps, boolean nesterov) {
    float c1 = 1 - beta1;
    float c2 = 1 - beta2;
    int gMinusVar = gOff - off;
    int end = off + len;
    for (int k = off + from; k < end; k++) {
      float gi = g[k + gMinusVar];
      float mk = m[k];
      float vk = v[k];
      float mi = Denormals.flush(mk + (gi - mk) * c1);
      float vi = Denormals.flush(vk + (gi * gi - vk) * c2);
      m[k] = mi;
      v[k] = vi;
      float step = nesterov ? gi * c1 + mi * beta1 : mi;
      wOut[k] = w[k] - step * lrT / ((float) Math.sqrt(vi) + eps);
    }
  }

  private static void update64(double[] w, double[] wOut, double[] m, double[] v, int off, double[] g, int gOff,
      int len, double lrT, double beta1, double beta2, double eps, boolean nesterov) {
    double c1 = 1 - beta1;
    double c2 = 1 - beta2;
    if (!nesterov) {
      for (int i = 0; i < len; i++) {
        double gi = g[gOff + i];
        int k = off + i;
        double mi = Denormals.flush(m[k] + (gi - m[k]) * c1);
        double vi = Denormals.flush(v[k] + (gi * gi - v[k]) * c2);
        m[k] = mi;
        v[k] = vi;
        wOut[k] = w[k] - mi * lrT / (Math.sqrt(vi) + eps);
      }
    } else {
      for (int i = 0; i < len; i++) {
        double gi = g[gOff + i];
        int k = off + i;
        double mi = Denormals.flush(m[k] + (gi - m[k]) * c1);
        double vi = Denormals.flush(v[k] + (gi * gi - v[k]) * c2);
        m[k] = mi;
        v[k] = vi;
        wOut[k] = w[k] - (gi * c1 + mi * beta1) * lrT / (Math.sqrt(vi) + eps);
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
    static int update32(float[] w, float[] wOut, float[] m, float[] v, int off, float[] g, int gOff, int len,
        float lrT, float beta1, float beta2, float eps, boolean nesterov) {
      float c1 = 1 - beta1;
      float c2 = 1 - beta2;
      int i = 0;
      for (int bound = F.loopBound(len); i < bound; i += F.length()) {
        FloatVector gi = FloatVector.fromArray(F, g, gOff + i);
        FloatVector mi = FloatVector.fromArray(F, m, off + i);
        FloatVector vi = FloatVector.fromArray(F, v, off + i);
        mi = VectorDenormals.flush(mi.add(gi.sub(mi).mul(c1)));
        vi = VectorDenormals.flush(vi.add(gi.mul(gi).sub(vi).mul(c2)));
        mi.intoArray(m, off + i);
        vi.intoArray(v, off + i);
        FloatVector step = nesterov ? gi.mul(c1).add(mi.mul(beta1)) : mi;
        FloatVector wi = FloatVector.fromArray(F, w, off + i);
        wi.sub(step.mul(lrT).div(vi.sqrt().add(eps))).intoArray(wOut, off + i);
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

  /**
   * Builds the op; {@code in} are the inputs in TensorFlow's order (handles for var, m and v), with
   * {@code indices} last for the sparse form.
   */
  public Operation create(Scope s, List<? extends Operand> in, boolean useLocking, boolean useNesterov) {
    return sig.build(this, s, in, useLocking, useNesterov);
  }
}
