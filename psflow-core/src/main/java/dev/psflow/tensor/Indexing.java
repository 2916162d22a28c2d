package dev.psflow.tensor;

import dev.psflow.exec.StatusException;
import java.util.Arrays;

/**
 * Index-driven kernels: Gather, UnsortedSegmentSum (its adjoint, which densifies sparse gradient
 * rows), OneHot and Fill. Index tensors are INT32 or INT64; out-of-range indices fail with
 * INVALID_ARGUMENT naming the index, as TensorFlow's kernels do on CPU. Stateless and thread-safe.
 */
public final class Indexing {
  private Indexing() {}

  /** Slices of {@code params} along {@code axis} at {@code indices}: shape params[:axis] + indices + params[axis+1:]. */
  public static Tensor gather(Tensor params, Tensor indices, int axis) {
    int[] dims = params.shape().toIntArray();
    int outer = product(dims, 0, axis);
    int n = dims[axis];
    int inner = product(dims, axis + 1, dims.length);
    int count = indices.size();
    long[] outDims = new long[dims.length - 1 + indices.rank()];
    int j = 0;
    for (int i = 0; i < axis; i++) {
      outDims[j++] = dims[i];
    }
    for (long d : indices.shape().toArray()) {
      outDims[j++] = d;
    }
    for (int i = axis + 1; i < dims.length; i++) {
      outDims[j++] = dims[i];
    }
    Shape shape = Shape.of(outDims);
    Object out = Layout.newArray(params.dtype(), shape);
    for (int k = 0; k < count; k++) {
      long idx = indices.getLong(k);
      if (idx < 0 || idx >= n) {
        throw StatusException.invalidArgument("indices[" + k + "] = " + idx + " is not in [0, " + n + ")");
      }
      for (int o = 0; o < outer; o++) {
        System.arraycopy(params.data(), (o * n + (int) idx) * inner, out, (o * count + k) * inner, inner);
      }
    }
    return Tensor.wrap(params.dtype(), shape, out);
  }

  /**
   * Sums the slices of {@code data} into {@code numSegments} rows by {@code segmentIds}, whose
   * shape must be a prefix of data's: shape [numSegments] + data[ids.rank:]; unnamed rows are 0.
   */
  public static Tensor unsortedSegmentSum(Tensor data, Tensor segmentIds, long numSegments) {
    long[] dataDims = data.shape().toArray();
    long[] idDims = segmentIds.shape().toArray();
    if (idDims.length > dataDims.length || !Arrays.equals(idDims, Arrays.copyOf(dataDims, idDims.length))) {
      throw StatusException.invalidArgument("data.shape = " + data.shape()
          + " does not start with segment_ids.shape = " + segmentIds.shape());
    }
    if (numSegments < 0) {
      throw StatusException.invalidArgument("num_segments must be >= 0, got " + numSegments);
    }
    long[] outDims = new long[dataDims.length - idDims.length + 1];
    outDims[0] = numSegments;
    System.arraycopy(dataDims, idDims.length, outDims, 1, outDims.length - 1);
    Tensor out = Tensor.zeros(data.dtype(), Shape.of(outDims));
    int count = segmentIds.size();
    int inner = count == 0 ? 0 : data.size() / count;
    for (int k = 0; k < count; k++) {
      long id = segmentIds.getLong(k);
      if (id < 0 || id >= numSegments) {
        throw StatusException.invalidArgument("segment_ids[" + k + "] = " + id + " is out of range [0, " + numSegments + ")");
      }
      Segments.addRow(data.data(), k * inner, out.data(), (int) id * inner, inner, 1);
    }
    return out;
  }

  /**
   * One-hot encoding: a new axis of size {@code depth} at {@code axis} (in the output's rank; -1 =
   * last) holding {@code on} at each index and {@code off} elsewhere; indices outside
   * [0, depth) give a row of {@code off}. {@code on} and {@code off} are scalars of the output type.
   */
  public static Tensor oneHot(Tensor indices, int depth, Tensor on, Tensor off, int axis) {
    int[] idxDims = indices.shape().toIntArray();
    int ax = axis < 0 ? idxDims.length : axis;
    int outer = product(idxDims, 0, ax);
    int inner = product(idxDims, ax, idxDims.length);
    long[] outDims = new long[idxDims.length + 1];
    for (int i = 0, j = 0; i < outDims.length; i++) {
      outDims[i] = i == ax ? depth : idxDims[j++];
    }
    Tensor out = fill(Shape.of(outDims), off);
    for (int o = 0; o < outer; o++) {
      for (int i = 0; i < inner; i++) {
        long idx = indices.getLong(o * inner + i);
        if (idx >= 0 && idx < depth) {
          System.arraycopy(on.data(), 0, out.data(), (int) ((o * depth + idx) * inner + i), 1);
        }
      }
    }
    return out;
  }

  /** A tensor of {@code shape} with every element equal to the scalar {@code value}. */
  public static Tensor fill(Shape shape, Tensor value) {
    int n = Math.toIntExact(shape.numElements());
    Object out = switch (value.data()) {
      case float[] v -> filled(new float[n], v[0]);
      case double[] v -> filled(new double[n], v[0]);
      case int[] v -> filled(new int[n], v[0]);
      case long[] v -> filled(new long[n], v[0]);
      case boolean[] v -> filled(new boolean[n], v[0]);
      case Object[] v -> {
        Object[] a = (Object[]) java.lang.reflect.Array.newInstance(v.getClass().componentType(), n);
        Arrays.fill(a, v[0]);
        yield a;
      }
      default -> throw new IllegalStateException("not an array: " + value.data().getClass());
    };
    return Tensor.wrap(value.dtype(), shape, out);
  }

  private static float[] filled(float[] a, float v) {
    Arrays.fill(a, v);
    return a;
  }

  private static double[] filled(double[] a, double v) {
    Arrays.fill(a, v);
    return a;
  }

  private static int[] filled(int[] a, int v) {
    Arrays.fill(a, v);
    return a;
  }

  private static long[] filled(long[] a, long v) {
    Arrays.fill(a, v);
    return a;
  }

  private static boolean[] filled(boolean[] a, boolean v) {
    Arrays.fill(a, v);
    return a;
  }

  private static int product(int[] a, int from, int to) {
    int p = 1;
    for (int i = from; i < to; i++) {
      p *= a[i];
    }
    return p;
  }
}
