package dev.psflow.tensor;

import dev.psflow.exec.StatusException;

/**
 * The INT64 inner loops of {@link Elementwise} (see {@link FloatLoops}). Arithmetic wraps on
 * overflow, as in TensorFlow; functions without an integer meaning are rejected.
 */
final class LongLoops {
  private LongLoops() {}

  static void binary(BinaryFn f, long[] a, int ai, int as, long[] b, int bi, int bs, long[] o, int oi, int n) {
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
      case FLOOR_DIV -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = Math.floorDiv(a[ai], nonZero(b[bi]));
        }
      }
      case FLOOR_MOD -> {
        for (; oi < end; oi++, ai += as, bi += bs) {
          o[oi] = Math.floorMod(a[ai], nonZero(b[bi]));
        }
      }
      case DIV, POW, SIGMOID_GRAD, TANH_GRAD, RSQRT_GRAD, SQRT_GRAD -> throw Elementwise.unsupported(f, DType.INT64);
    }
  }

  private static long nonZero(long divisor) {
    if (divisor == 0) {
      throw StatusException.invalidArgument("Integer division by zero");
    }
    return divisor;
  }

  static void compare(CompareFn f, long[] a, int ai, int as, long[] b, int bi, int bs, boolean[] o, int oi, int n) {
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

  static void unary(UnaryFn f, long[] x, long[] o) {
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
      case ABS -> {
        for (int i = 0; i < n; i++) {
          o[i] = Math.abs(x[i]);
        }
      }
      case SIGN -> {
        for (int i = 0; i < n; i++) {
          o[i] = Long.signum(x[i]);
        }
      }
      case SQRT, RSQRT, EXP, LOG, SIGMOID, TANH -> throw Elementwise.unsupported(f, DType.INT64);
    }
  }
}
