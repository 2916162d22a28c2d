package dev.psflow.tensor;

/**
 * The FLOAT64 inner loops of {@link Elementwise}: one plain loop per function, selected by an
 * exhaustive switch outside the loop so that nothing is called per element.
 */
final class DoubleLoops {
  private DoubleLoops() {}

  /** o[oi + k] = f(a[ai + k·as], b[bi + k·bs]) for k in [0, n); strides are 0 or 1. */
  static void binary(BinaryFn f, double[] a, int ai, int as, double[] b, int bi, int bs, double[] o, int oi, int n) {
    // The hot arithmetic gets loops the JIT vectorizes: unit strides, or a broadcast scalar hoisted.
    if (as == 1 && bs == 1 && arithmetic(f, a, ai, b, bi, o, oi, n)) {
      return;
    }
    if (as == 1 && bs == 0 && arithmeticScalar(f, a, ai, b[bi], false, o, oi, n)) {
      return;
    }
    if (as == 0 && bs == 1 && arithmeticScalar(f, b, bi, a[ai], true, o, oi, n)) {
      return;
    }
    strided(f, a, ai, as, b, bi, bs, o, oi, n);
  }

  private static boolean arithmetic(BinaryFn f, double[] a, int ai, double[] b, int bi, double[] o, int oi, int n) {
    switch (f) {
      case ADD -> {
        for (int k = 0; k < n; k++) {
          o[oi + k] = a[ai + k] + b[bi + k];
        }
      }
      case SUB -> {
        for (int k = 0; k < n; k++) {
          o[oi + k] = a[ai + k] - b[bi + k];
        }
      }
      case MUL -> {
        for (int k = 0; k < n; k++) {
          o[oi + k] = a[ai + k] * b[bi + k];
        }
      }
      case DIV -> {
        for (int k = 0; k < n; k++) {
          o[oi + k] = a[ai + k] / b[bi + k];
        }
      }
      default -> {
        return false;
      }
    }
    return true;
  }

  /** o = x (f) s, or s (f) x when {@code scalarFirst}. */
  private static boolean arithmeticScalar(BinaryFn f, double[] x, int xi, double s, boolean scalarFirst, double[] o, int oi, int n) {
    switch (f) {
      case ADD -> {
        for (int k = 0; k < n; k++) {
          o[oi + k] = x[xi + k] + s;
        }
      }
      case MUL -> {
        for (int k = 0; k < n; k++) {
          o[oi + k] = x[xi + k] * s;
        }
      }
      case SUB -> {
        if (scalarFirst) {
          for (int k = 0; k < n; k++) {
            o[oi + k] = s - x[xi + k];
          }
        } else {
          for (int k = 0; k < n; k++) {
            o[oi + k] = x[xi + k] - s;
          }
        }
      }
      case DIV -> {
        if (scalarFirst) {
          for (int k = 0; k < n; k++) {
            o[oi + k] = s / x[xi + k];
          }
        } else {
          for (int k = 0; k < n; k++) {
            o[oi + k] = x[xi + k] / s;
          }
        }
      }
      default -> {
        return false;
      }
    }
    return true;
  }

  private static void strided(BinaryFn f, double[] a, int ai, int as, double[] b, int bi, int bs, double[] o, int oi, int n) {
    int end = oi + n;
    switch (f) {
      case ADD -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] + b[bi];
        }
      }
      case SUB -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] - b[bi];
        }
      }
      case MUL -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] * b[bi];
        }
      }
      case DIV -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] / b[bi];
        }
      }
      case MAX -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = Math.max(a[ai], b[bi]);
        }
      }
      case MIN -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = Math.min(a[ai], b[bi]);
        }
      }
      case POW -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = Math.pow(a[ai], b[bi]);
        }
      }
      case FLOOR_DIV -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = Math.floor(a[ai] / b[bi]);
        }
      }
      case FLOOR_MOD -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = floorMod(a[ai], b[bi]);
        }
      }
      case SIGMOID_GRAD -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = b[bi] * a[ai] * (1 - a[ai]);
        }
      }
      case TANH_GRAD -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = b[bi] * (1 - a[ai] * a[ai]);
        }
      }
      case RSQRT_GRAD -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = b[bi] * (-0.5 * a[ai] * a[ai] * a[ai]);
        }
      }
      case SQRT_GRAD -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = b[bi] * 0.5 / a[ai];
        }
      }
    }
  }

  /** As TensorFlow's FloorMod: fmod, moved by one period when its sign differs from y's. */
  static double floorMod(double x, double y) {
    double r = x % y;
    return r != 0 && (r < 0) != (y < 0) ? r + y : r;
  }

  /** o[oi + k] = a[ai + k·as] (f) b[bi + k·bs] for k in [0, n). */
  static void compare(CompareFn f, double[] a, int ai, int as, double[] b, int bi, int bs, boolean[] o, int oi, int n) {
    int end = oi + n;
    switch (f) {
      case EQ -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] == b[bi];
        }
      }
      case NE -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] != b[bi];
        }
      }
      case LT -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] < b[bi];
        }
      }
      case LE -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] <= b[bi];
        }
      }
      case GT -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] > b[bi];
        }
      }
      case GE -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = a[ai] >= b[bi];
        }
      }
    }
  }

  /** o[i] = f(x[i]) for every i. */
  static void unary(UnaryFn f, double[] x, double[] o) {
    int n = x.length;
    switch (f) {
      case NEG -> {
        for (int i = 0; i < n; i++) {
          o[i] = -x[i];
        }
      }
      case SQUARE -> {
        for (int i = 0; i < n; i++) {
          o[i] = x[i] * x[i];
        }
      }
      case SQRT -> {
        for (int i = 0; i < n; i++) {
          o[i] = Math.sqrt(x[i]);
        }
      }
      case RSQRT -> {
        for (int i = 0; i < n; i++) {
          o[i] = (1 / Math.sqrt(x[i]));
        }
      }
      case EXP -> {
        for (int i = 0; i < n; i++) {
          o[i] = Math.exp(x[i]);
        }
      }
      case LOG -> {
        for (int i = 0; i < n; i++) {
          o[i] = Math.log(x[i]);
        }
      }
      case ABS -> {
        for (int i = 0; i < n; i++) {
          o[i] = Math.abs(x[i]);
        }
      }
      case SIGN -> {
        for (int i = 0; i < n; i++) {
          o[i] = Math.signum(x[i]);
        }
      }
      case SIGMOID -> {
        // exp(-x) overflows to +inf for x < -709, giving exactly 0: no NaN for large |x|.
        for (int i = 0; i < n; i++) {
          o[i] = (1 / (1 + Math.exp(-x[i])));
        }
      }
      case TANH -> {
        for (int i = 0; i < n; i++) {
          o[i] = Math.tanh(x[i]);
        }
      }
    }
  }
}
