package dev.psflow.tensor;

/**
 * Flush-to-zero for values that decay geometrically (Adam's and momentum's moments, softmax's
 * tails). A subnormal float costs the CPU a microcode assist on every operation — an Adam update
 * over a layer whose moments have decayed below 1.2e-38 runs 15 to 25 times slower — and Java
 * cannot set the CPU's flush-to-zero mode, so kernels flush explicitly. TensorFlow runs its kernels
 * with denormals flushed to zero, so this keeps its numerics. ({@link VectorDenormals} does the same
 * lane by lane; it is a class of its own so that this one links without the Vector API.)
 *
 * <p>Stateless, so thread-safe.
 *
 * <pre>{@code
 * m[k] = Denormals.flush(m[k] * beta1 + g[k] * (1 - beta1));
 * }</pre>
 */
public final class Denormals {
  private Denormals() {}

  // A zero exponent field is exactly |x| < MIN_NORMAL (zeros and subnormals); NaN and infinities keep
  // theirs. Tested on the bits rather than with Math.abs: C1 (a ps task's only compiler) made Adam's
  // plain loop ~10% faster so.
  public static float flush(float x) {
    return (Float.floatToRawIntBits(x) & 0x7f800000) == 0 ? 0f : x;
  }

  public static double flush(double x) {
    return (Double.doubleToRawLongBits(x) & 0x7ff0000000000000L) == 0 ? 0.0 : x;
  }
}
