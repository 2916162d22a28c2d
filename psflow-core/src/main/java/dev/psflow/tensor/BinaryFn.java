package dev.psflow.tensor;

/**
 * The elementwise binary functions {@link Elementwise#binary} computes, with broadcasting. Floating
 * types support every function; integer types the ones marked so ({@link #supports}).
 */
public enum BinaryFn {
  /** a + b */
  ADD(true),
  /** a - b */
  SUB(true),
  /** a * b */
  MUL(true),
  /** a / b (floating only: TensorFlow's RealDiv) */
  DIV(false),
  /** max(a, b); NaN if either is NaN */
  MAX(true),
  /** min(a, b); NaN if either is NaN */
  MIN(true),
  /** a ^ b */
  POW(false),
  /** ⌊a / b⌋ (TensorFlow's FloorDiv); integer division by zero is INVALID_ARGUMENT */
  FLOOR_DIV(true),
  /** a − ⌊a / b⌋·b: the remainder with the sign of b (TensorFlow's FloorMod) */
  FLOOR_MOD(true),
  /** SigmoidGrad(y, dy) = dy · y · (1 − y) */
  SIGMOID_GRAD(false),
  /** TanhGrad(y, dy) = dy · (1 − y²) */
  TANH_GRAD(false),
  /** RsqrtGrad(y, dy) = dy · (−y³ / 2) */
  RSQRT_GRAD(false),
  /** SqrtGrad(y, dy) = dy · 0.5 / y */
  SQRT_GRAD(false);

  private final boolean integer;

  BinaryFn(boolean integer) {
    this.integer = integer;
  }

  /** Whether {@link Elementwise} has a loop for this function on {@code t}. */
  public boolean supports(DType t) {
    return t.isFloating() || (integer && t.isInteger());
  }
}
