package dev.psflow.ops.array;

import java.util.ArrayList;
import java.util.List;

/**
 * TensorFlow's {@code ValidateStridedSliceOp}, shared by StridedSlice's shape function and kernel
 * and by StridedSliceGrad: turns the sparse spec (begin, end, strides and the five masks, one entry
 * per slice-spec item) into one canonical begin and stride per input dimension, the "processing"
 * shape the strided walk produces, and the final shape (new axes inserted, shrunk axes dropped).
 * Errors are IllegalArgumentExceptions worded as TensorFlow words them. Stateless.
 */
final class StridedSliceSpec {
  private static final int NEW_AXIS = -1;
  private static final int SHRINK_AXIS = -2;

  /**
   * The dense spec: {@code begin[i]} and {@code stride[i]} for each input dimension, the processing
   * shape (-1 where unknown while building) and the final shape.
   */
  record Dense(long[] begin, long[] stride, long[] processing, long[] finalShape) {}

  /** Visits one contiguous walk of {@code n} elements: input from {@code in} by {@code step}, output from {@code out} by 1. */
  @FunctionalInterface
  interface RowVisitor {
    void visit(int in, int out, int n, int step);
  }

  private StridedSliceSpec() {}

  private static boolean bit(int mask, int i) {
    return i < 32 && ((mask >>> i) & 1) != 0;
  }

  /**
   * The dense spec for an input of dimensions {@code dims} (-1 for unknown ones); {@code begin} or
   * {@code end} may be null when known only at run time.
   */
  static Dense analyze(long[] dims, long[] begin, long[] end, long[] strides, StridedSlice.Masks m) {
    int sparse = strides.length;
    if ((begin != null && begin.length != sparse) || (end != null && end.length != sparse)) {
      throw new IllegalArgumentException("Expected begin, end, and strides to be 1D equal size tensors, but got shapes ["
          + (begin == null ? "?" : begin.length) + "], [" + (end == null ? "?" : end.length) + "], and [" + sparse + "] instead.");
    }
    if (sparse > 32) {
      throw new IllegalArgumentException("a slice spec has at most 32 entries, got " + sparse);
    }
    if (Integer.bitCount(m.ellipsisMask()) > 1) {
      throw new IllegalArgumentException("Multiple ellipses in slice spec not allowed");
    }
    // Without an explicit ellipsis, one is implied after the last entry.
    int ellipsisAt = m.ellipsisMask() == 0 ? sparse : Integer.numberOfTrailingZeros(m.ellipsisMask());
    int items = m.ellipsisMask() == 0 ? sparse + 1 : sparse;
    int newAxesAfterEllipsis = 0;
    for (int i = ellipsisAt + 1; i < sparse; i++) {
      newAxesAfterEllipsis += bit(m.newAxisMask(), i) ? 1 : 0;
    }
    int rank = dims.length;
    long[] b = new long[rank];
    long[] e = new long[rank];
    long[] s = new long[rank];
    boolean[] beginMasked = new boolean[rank];
    boolean[] endMasked = new boolean[rank];
    boolean[] shrink = new boolean[rank];
    List<Integer> gather = new ArrayList<>();
    int full = 0;
    for (int i = 0; i < items; i++) {
      if (i == ellipsisAt) {
        int next = Math.min(rank - (items - i) + 1 + newAxesAfterEllipsis, rank);
        for (; full < next; full++) {
          s[full] = 1;
          beginMasked[full] = true;
          endMasked[full] = true;
          gather.add(full);
        }
      } else if (bit(m.newAxisMask(), i)) {
        gather.add(NEW_AXIS);
      } else {
        if (full == rank) {
          throw new IllegalArgumentException("Index out of range using input dim " + full + "; input has only " + rank + " dims");
        }
        b[full] = begin == null ? 0 : begin[i];
        e[full] = end == null ? 0 : end[i];
        s[full] = strides[i];
        beginMasked[full] = bit(m.beginMask(), i);
        endMasked[full] = bit(m.endMask(), i);
        shrink[full] = bit(m.shrinkAxisMask(), i);
        gather.add(shrink[full] ? SHRINK_AXIS : full);
        full++;
      }
    }
    boolean bounds = begin != null && end != null;
    long[] processing = new long[rank];
    for (int i = 0; i < rank; i++) {
      processing[i] = dimension(i, dims[i], b, e, s[i], beginMasked[i], endMasked[i], shrink[i], bounds);
    }
    List<Long> out = new ArrayList<>();
    for (int g : gather) {
      if (g == NEW_AXIS) {
        out.add(1L);
      } else if (g != SHRINK_AXIS) {
        out.add(processing[g]);
      }
    }
    return new Dense(b, s, processing, out.stream().mapToLong(Long::longValue).toArray());
  }

  /** The processing size along dimension i; canonicalizes b[i] (and e[i]) in place. */
  private static long dimension(int i, long dim, long[] b, long[] e, long stride, boolean beginMasked,
      boolean endMasked, boolean shrink, boolean bounds) {
    if (stride == 0) {
      throw new IllegalArgumentException("strides[" + i + "] must be non-zero");
    }
    if (dim == -1) {
      return shrink ? 1 : -1;
    }
    if (shrink && stride <= 0) {
      throw new IllegalArgumentException("only stride 1 allowed on non-range indexing.");
    }
    long interval;
    if (bounds) {
      if (shrink) {
        // foo[-1] comes as begin -1, end 0: rebuild end as begin + 1 once begin is forward.
        long forward = b[i] < 0 ? dim + b[i] : b[i];
        if (forward < 0 || forward >= dim) {
          throw new IllegalArgumentException("slice index " + b[i] + " of dimension " + i + " out of bounds.");
        }
        b[i] = forward;
        e[i] = forward + 1;
      } else {
        b[i] = canonical(b[i], 0, dim, stride, beginMasked);
        e[i] = canonical(e[i], 1, dim, stride, endMasked);
      }
      interval = e[i] - b[i];
    } else if (shrink) {
      return 1;
    } else if (beginMasked && endMasked) {
      interval = stride < 0 ? -dim : dim;
    } else {
      return -1;
    }
    if (interval == 0 || (interval < 0) != (stride < 0)) {
      return 0;
    }
    return interval / stride + (interval % stride != 0 ? 1 : 0);
  }

  /** A begin (c = 0) or end (c = 1) clamped into the range a walk with this stride may use. */
  private static long canonical(long x, int c, long dim, long stride, boolean masked) {
    long lo = stride > 0 ? 0 : -1;
    long hi = stride > 0 ? dim : dim - 1;
    if (masked) {
      return stride > 0 ? (c == 0 ? lo : hi) : (c == 0 ? hi : lo);
    }
    long forward = x < 0 ? dim + x : x;
    return forward < lo ? lo : Math.min(forward, hi);
  }

  /**
   * Walks the processing shape of a fully known dense spec over an input of dimensions {@code dims}
   * in row-major order, one visit per run along the last dimension.
   */
  static void forEachRow(long[] dims, Dense d, RowVisitor v) {
    int rank = dims.length;
    if (rank == 0) {
      v.visit(0, 0, 1, 1);
      return;
    }
    long[] inStride = new long[rank];
    long acc = 1;
    for (int i = rank - 1; i >= 0; i--) {
      inStride[i] = acc;
      acc *= dims[i];
    }
    for (long p : d.processing()) {
      if (p == 0) {
        return;
      }
    }
    int last = rank - 1;
    int n = (int) d.processing()[last];
    int step = (int) (d.stride()[last] * inStride[last]);
    int[] k = new int[rank];
    int out = 0;
    while (true) {
      long in = 0;
      for (int i = 0; i < rank; i++) {
        in += (d.begin()[i] + k[i] * d.stride()[i]) * inStride[i];
      }
      v.visit((int) in, out, n, step);
      out += n;
      int i = last - 1;
      while (i >= 0 && ++k[i] == d.processing()[i]) {
        k[i--] = 0;
      }
      if (i < 0) {
        return;
      }
    }
  }

  static long product(long[] dims) {
    long p = 1;
    for (long d : dims) {
      p *= d;
    }
    return p;
  }
}
