package dev.psflow.tensor;

import java.util.Arrays;
import java.util.Objects;

/**
 * A typed n-dimensional array: a {@link DType}, a fully defined {@link Shape} and one primitive
 * array in row-major order ({@code float[]} for FLOAT32, {@code double[]}, {@code int[]},
 * {@code long[]}, {@code boolean[]}, {@code String[]}, {@code ResourceHandle[]}).
 *
 * <p>Immutable by convention: kernels never write into their inputs; only a variable's storage is
 * updated in place, by the apply kernels that own it. The arrays returned by the accessors are the
 * storage itself (no copy), so callers must not modify them. Thread-safe for reading.
 *
 * <pre>{@code
 * Tensor w = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
 * Tensor s = Tensor.scalar(3.5f);
 * float[] values = w.floatData();
 * }</pre>
 */
public final class Tensor {
  private final DType dtype;
  private final Shape shape;
  private final Object data;

  private Tensor(DType dtype, Shape shape, Object data) {
    this.dtype = dtype;
    this.shape = shape;
    this.data = data;
  }

  /** Wraps {@code data} (not copied) after checking it matches the dtype and shape. */
  public static Tensor wrap(DType dtype, Shape shape, Object data) {
    Objects.requireNonNull(dtype, "dtype");
    if (!shape.isFullyDefined()) {
      throw new IllegalArgumentException("a tensor needs a fully defined shape, got " + shape);
    }
    if (overflows(shape)) {
      throw new IllegalArgumentException("shape " + shape + " has more elements than a long can count");
    }
    int length = java.lang.reflect.Array.getLength(data);
    if (length != shape.numElements()) {
      throw new IllegalArgumentException(
          "shape " + shape + " needs " + shape.numElements() + " elements, got " + length);
    }
    if (arrayClass(dtype) != data.getClass()) {
      throw new IllegalArgumentException(
          "dtype " + dtype + " needs a " + arrayClass(dtype).getSimpleName() + ", got " + data.getClass().getSimpleName());
    }
    return new Tensor(dtype, shape, data);
  }

  /**
   * Whether the product of the dimensions overflows a long, in which case {@link Shape#numElements}
   * wraps around and could match the array's length ([2^32, 2^32] "holds" 0 elements); decoders
   * hand such shapes straight from a peer's bytes.
   */
  private static boolean overflows(Shape shape) {
    long n = 1;
    for (int i = 0; i < shape.rank(); i++) {
      long d = shape.size(i);
      if (d != 0 && n > Long.MAX_VALUE / d) {
        return true;
      }
      n *= d;
    }
    return false;
  }

  /** A zero-filled tensor (false, "" for the non-numeric types). */
  public static Tensor zeros(DType dtype, Shape shape) {
    int n = Math.toIntExact(shape.numElements());
    Object data =
        switch (dtype) {
          case FLOAT32 -> new float[n];
          case FLOAT64 -> new double[n];
          case INT32 -> new int[n];
          case INT64 -> new long[n];
          case BOOL -> new boolean[n];
          case STRING -> filled(new String[n], "");
          case RESOURCE -> new ResourceHandle[n];
        };
    return wrap(dtype, shape, data);
  }

  private static String[] filled(String[] a, String v) {
    Arrays.fill(a, v);
    return a;
  }

  public static Class<?> arrayClass(DType dtype) {
    return switch (dtype) {
      case FLOAT32 -> float[].class;
      case FLOAT64 -> double[].class;
      case INT32 -> int[].class;
      case INT64 -> long[].class;
      case BOOL -> boolean[].class;
      case STRING -> String[].class;
      case RESOURCE -> ResourceHandle[].class;
    };
  }

  public static Tensor of(float[] data, int... shape) {
    return wrap(DType.FLOAT32, Shape.of(shape), data);
  }

  public static Tensor of(double[] data, int... shape) {
    return wrap(DType.FLOAT64, Shape.of(shape), data);
  }

  public static Tensor of(int[] data, int... shape) {
    return wrap(DType.INT32, Shape.of(shape), data);
  }

  public static Tensor of(long[] data, int... shape) {
    return wrap(DType.INT64, Shape.of(shape), data);
  }

  public static Tensor of(boolean[] data, int... shape) {
    return wrap(DType.BOOL, Shape.of(shape), data);
  }

  public static Tensor of(String[] data, int... shape) {
    return wrap(DType.STRING, Shape.of(shape), data);
  }

  public static Tensor scalar(float v) {
    return new Tensor(DType.FLOAT32, Shape.scalar(), new float[] {v});
  }

  public static Tensor scalar(double v) {
    return new Tensor(DType.FLOAT64, Shape.scalar(), new double[] {v});
  }

  public static Tensor scalar(int v) {
    return new Tensor(DType.INT32, Shape.scalar(), new int[] {v});
  }

  public static Tensor scalar(long v) {
    return new Tensor(DType.INT64, Shape.scalar(), new long[] {v});
  }

  public static Tensor scalar(boolean v) {
    return new Tensor(DType.BOOL, Shape.scalar(), new boolean[] {v});
  }

  public static Tensor scalar(String v) {
    return new Tensor(DType.STRING, Shape.scalar(), new String[] {v});
  }

  public static Tensor scalar(ResourceHandle v) {
    return new Tensor(DType.RESOURCE, Shape.scalar(), new ResourceHandle[] {v});
  }

  public static Tensor vector(float... v) {
    return of(v.clone(), v.length);
  }

  public static Tensor vector(double... v) {
    return of(v.clone(), v.length);
  }

  public static Tensor vector(int... v) {
    return of(v.clone(), v.length);
  }

  public static Tensor vector(long... v) {
    return of(v.clone(), v.length);
  }

  public static Tensor matrix(float[][] rows) {
    int cols = rows.length == 0 ? 0 : rows[0].length;
    float[] d = new float[rows.length * cols];
    for (int r = 0; r < rows.length; r++) {
      if (rows[r].length != cols) {
        throw new IllegalArgumentException("row " + r + " has " + rows[r].length + " columns, row 0 has " + cols);
      }
      System.arraycopy(rows[r], 0, d, r * cols, cols);
    }
    return of(d, rows.length, cols);
  }

  public static Tensor matrix(double[][] rows) {
    int cols = rows.length == 0 ? 0 : rows[0].length;
    double[] d = new double[rows.length * cols];
    for (int r = 0; r < rows.length; r++) {
      if (rows[r].length != cols) {
        throw new IllegalArgumentException("row " + r + " has " + rows[r].length + " columns, row 0 has " + cols);
      }
      System.arraycopy(rows[r], 0, d, r * cols, cols);
    }
    return of(d, rows.length, cols);
  }

  public DType dtype() {
    return dtype;
  }

  public Shape shape() {
    return shape;
  }

  public int rank() {
    return shape.rank();
  }

  public int size() {
    return (int) shape.numElements();
  }

  /** The backing array (not a copy). */
  public Object data() {
    return data;
  }

  public float[] floatData() {
    return (float[]) expect(DType.FLOAT32);
  }

  public double[] doubleData() {
    return (double[]) expect(DType.FLOAT64);
  }

  public int[] intData() {
    return (int[]) expect(DType.INT32);
  }

  public long[] longData() {
    return (long[]) expect(DType.INT64);
  }

  public boolean[] boolData() {
    return (boolean[]) expect(DType.BOOL);
  }

  public String[] stringData() {
    return (String[]) expect(DType.STRING);
  }

  public ResourceHandle resourceHandle() {
    return ((ResourceHandle[]) expect(DType.RESOURCE))[0];
  }

  private Object expect(DType t) {
    if (dtype != t) {
      throw new IllegalStateException("tensor is " + dtype + ", not " + t);
    }
    return data;
  }

  /** Element {@code i} (row-major) as a double, for any numeric or bool tensor. */
  public double getDouble(int i) {
    return switch (dtype) {
      case FLOAT32 -> ((float[]) data)[i];
      case FLOAT64 -> ((double[]) data)[i];
      case INT32 -> ((int[]) data)[i];
      case INT64 -> ((long[]) data)[i];
      case BOOL -> ((boolean[]) data)[i] ? 1 : 0;
      default -> throw new IllegalStateException("tensor of " + dtype + " has no numeric value");
    };
  }

  /** Element {@code i} (row-major) as a long, for integer tensors. */
  public long getLong(int i) {
    return switch (dtype) {
      case INT32 -> ((int[]) data)[i];
      case INT64 -> ((long[]) data)[i];
      default -> (long) getDouble(i);
    };
  }

  /** The value of a one-element tensor as a double. */
  public double scalarDouble() {
    if (size() != 1) {
      throw new IllegalStateException("not a scalar: shape " + shape);
    }
    return getDouble(0);
  }

  /** The value of a one-element integer tensor as a long. */
  public long scalarLong() {
    if (size() != 1) {
      throw new IllegalStateException("not a scalar: shape " + shape);
    }
    return getLong(0);
  }

  /** A deep copy (new storage). */
  public Tensor copy() {
    Object c =
        switch (dtype) {
          case FLOAT32 -> ((float[]) data).clone();
          case FLOAT64 -> ((double[]) data).clone();
          case INT32 -> ((int[]) data).clone();
          case INT64 -> ((long[]) data).clone();
          case BOOL -> ((boolean[]) data).clone();
          case STRING -> ((String[]) data).clone();
          case RESOURCE -> ((ResourceHandle[]) data).clone();
        };
    return new Tensor(dtype, shape, c);
  }

  /** The same storage seen with another shape of the same number of elements. */
  public Tensor reshape(Shape newShape) {
    if (newShape.numElements() != shape.numElements()) {
      throw new IllegalArgumentException("cannot reshape " + shape + " to " + newShape);
    }
    return new Tensor(dtype, newShape, data);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Tensor t
        && dtype == t.dtype
        && shape.equals(t.shape)
        && Arrays.deepEquals(new Object[] {data}, new Object[] {t.data});
  }

  @Override
  public int hashCode() {
    return Objects.hash(dtype, shape, Arrays.deepHashCode(new Object[] {data}));
  }

  /** {@code float [2,2] [[1.0, 2.0], [3.0, 4.0]]}; large tensors are elided. */
  @Override
  public String toString() {
    return TensorFormat.format(this);
  }
}
