package dev.psflow.tensor;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

/**
 * {@link Denormals#flush(float)} lane by lane, for vectorized kernels. A class of its own because
 * it links the Vector API: call it only from code reached when {@link VectorSupport#AVAILABLE}.
 * Stateless, so thread-safe.
 *
 * <pre>{@code
 * m = VectorDenormals.flush(m.add(g.sub(m).mul(c1)));
 * }</pre>
 */
public final class VectorDenormals {
  private VectorDenormals() {}

  public static FloatVector flush(FloatVector v) {
    return v.blend(0f, v.abs().compare(VectorOperators.LT, Float.MIN_NORMAL));
  }
}
