package dev.psflow.tensor;

import dev.psflow.exec.StatusException;

/**
 * The sorted-segment kernels: SegmentSum, the SparseSegment reductions (sum, mean, sqrt-n of rows
 * picked by an index vector) and the gradients of the last two. Segment ids are sorted and
 * non-negative; the output has {@code last id + 1} rows, and rows of empty segments are 0.
 * Failures are INVALID_ARGUMENT worded as TensorFlow's kernels word them. Stateless and thread-safe.
 *
 * <pre>{@code
 * Tensor sums = Segments.segmentSum(rows, Tensor.vector(0, 0, 2));            // 3 rows, row 1 zero
 * Tensor means = Segments.sparseSegment(table, ids, segmentIds, Segments.Reduction.MEAN);
 * }</pre>
 */
public final class Segments {
  /** How the rows of one segment combine: their sum, their mean, or their sum over √count. */
  public enum Reduction {
    SUM,
    MEAN,
    SQRT_N;

    double scale(int count) {
      return switch (this) {
        case SUM -> 1;
        case MEAN -> 1.0 / Math.max(1, count);
        case SQRT_N -> 1 / Math.sqrt(Math.max(1, count));
      };
    }
  }

  private Segments() {}

  /** out[s] = Σ data[i] over the i with segmentIds[i] = s; segmentIds is a sorted vector of data's first dimension. */
  public static Tensor segmentSum(Tensor data, Tensor segmentIds) {
    if (segmentIds.rank() != 1 || data.rank() < 1 || segmentIds.size() != data.shape().dim(0)) {
      throw StatusException.invalidArgument("segment_ids should be the same size as dimension 0 of input, got "
          + segmentIds.shape() + " for data of shape " + data.shape());
    }
    int n = segmentIds.size();
    int rows = rowsOf(segmentIds);
    Tensor out = Tensor.zeros(data.dtype(), withRows(data.shape(), rows));
    int row = n == 0 ? 0 : data.size() / n;
    for (int i = 0; i < n; i++) {
      addRow(data.data(), i * row, out.data(), (int) segmentIds.getLong(i) * row, row, 1);
    }
    return out;
  }

  /** out[s] = reduce of data[indices[i]] over the i with segmentIds[i] = s. */
  public static Tensor sparseSegment(Tensor data, Tensor indices, Tensor segmentIds, Reduction r) {
    checkPair(indices, segmentIds);
    if (data.rank() < 1) {
      throw StatusException.invalidArgument("data must be at least 1-D, got a scalar");
    }
    int n = indices.size();
    int rows = rowsOf(segmentIds);
    int limit = data.shape().dim(0);
    int row = limit == 0 ? 0 : data.size() / limit;
    Tensor out = Tensor.zeros(data.dtype(), withRows(data.shape(), rows));
    int[] counts = counts(segmentIds, rows);
    for (int i = 0; i < n; i++) {
      long index = indices.getLong(i);
      if (index < 0 || index >= limit) {
        throw StatusException.invalidArgument("Bad: indices[" + i + "] == " + index + " out of range [0, " + limit + ")");
      }
      int s = (int) segmentIds.getLong(i);
      addRow(data.data(), (int) index * row, out.data(), s * row, row, r.scale(counts[s]));
    }
    return out;
  }

  /**
   * The gradient of a MEAN or SQRT_N sparse segment reduction: out (of {@code outputRows} rows)
   * gets grad[segmentIds[i]] scaled by 1/count (1/√count) added at row indices[i].
   */
  public static Tensor sparseSegmentGrad(Tensor grad, Tensor indices, Tensor segmentIds, long outputRows, Reduction r) {
    checkPair(indices, segmentIds);
    if (grad.rank() < 1) {
      throw StatusException.invalidArgument("grad must be at least 1-D, got a scalar");
    }
    int n = indices.size();
    int gradRows = grad.shape().dim(0);
    int row = gradRows == 0 ? 0 : grad.size() / gradRows;
    int[] counts = counts(segmentIds, gradRows);
    Tensor out = Tensor.zeros(grad.dtype(), withRows(grad.shape(), Math.toIntExact(outputRows)));
    for (int i = 0; i < n; i++) {
      long index = indices.getLong(i);
      long s = segmentIds.getLong(i);
      if (index < 0 || index >= outputRows) {
        throw StatusException.invalidArgument("Index " + index + " out of range [0, " + outputRows + ")");
      }
      if (s < 0 || s >= gradRows) {
        throw StatusException.invalidArgument("Segment id " + s + " out of range [0, " + gradRows + ")");
      }
      addRow(grad.data(), (int) s * row, out.data(), (int) index * row, row, r.scale(counts[(int) s]));
    }
    return out;
  }

  private static void checkPair(Tensor indices, Tensor segmentIds) {
    if (indices.rank() != 1 || segmentIds.rank() != 1) {
      throw StatusException.invalidArgument("indices and segment_ids must be vectors, got " + indices.shape()
          + " and " + segmentIds.shape());
    }
    if (indices.size() != segmentIds.size()) {
      throw StatusException.invalidArgument("segment_ids and indices should have same size, got "
          + segmentIds.size() + " and " + indices.size());
    }
  }

  /** last id + 1, after checking the ids are non-negative and sorted. */
  private static int rowsOf(Tensor segmentIds) {
    long prev = 0;
    for (int i = 0; i < segmentIds.size(); i++) {
      long s = segmentIds.getLong(i);
      if (s < 0) {
        throw StatusException.invalidArgument("segment ids must be >= 0, got segment_ids[" + i + "] = " + s);
      }
      if (s < prev) {
        throw StatusException.invalidArgument("segment ids are not increasing: segment_ids[" + i + "] = " + s
            + " after " + prev);
      }
      prev = s;
    }
    return segmentIds.size() == 0 ? 0 : Math.toIntExact(prev + 1);
  }

  private static int[] counts(Tensor segmentIds, int rows) {
    int[] c = new int[rows];
    for (int i = 0; i < segmentIds.size(); i++) {
      long s = segmentIds.getLong(i);
      if (s >= 0 && s < rows) {
        c[(int) s]++;
      }
    }
    return c;
  }

  private static Shape withRows(Shape s, int rows) {
    long[] d = s.toArray();
    d[0] = rows;
    return Shape.of(d);
  }

  /** dst[di..di+n) += scale · src[si..si+n), for any numeric element type (also UnsortedSegmentSum's, scale 1). */
  static void addRow(Object src, int si, Object dst, int di, int n, double scale) {
    switch (src) {
      case float[] s -> {
        float[] d = (float[]) dst;
        float k = (float) scale;
        for (int i = 0; i < n; i++) {
          d[di + i] += k * s[si + i];
        }
      }
      case double[] s -> {
        double[] d = (double[]) dst;
        for (int i = 0; i < n; i++) {
          d[di + i] += scale * s[si + i];
        }
      }
      // Integer tensors only reach here through sums (mean and sqrt-n are for floats).
      case int[] s -> {
        int[] d = (int[]) dst;
        for (int i = 0; i < n; i++) {
          d[di + i] += s[si + i];
        }
      }
      case long[] s -> {
        long[] d = (long[]) dst;
        for (int i = 0; i < n; i++) {
          d[di + i] += s[si + i];
        }
      }
      default -> throw StatusException.invalidArgument("segment reductions need a numeric type, got "
          + src.getClass().getSimpleName());
    }
  }
}
