package dev.psflow.ops.io;

import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.core.Const;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.Arrays;
import java.util.List;

/** Checks and helpers shared by SaveV2 and RestoreV2: string inputs at graph time and at run time. */
final class IoChecks {
  private IoChecks() {}

  /** Input {@code i} must be a string tensor whose shape may be {@code shape}. */
  static void requireStrings(Operation op, int i, String what, Shape shape) {
    Output in = op.input(i);
    if (in.dtype() != DType.STRING) {
      throw new IllegalArgumentException(what + " must be a string tensor, got " + in.dtype());
    }
    if (!in.shape().isCompatibleWith(shape)) {
      throw new IllegalArgumentException(what + " must have shape " + shape + ", got " + in.shape());
    }
  }

  static String scalarString(Tensor t, String what) {
    if (t.size() != 1) {
      throw StatusException.invalidArgument(what + " must be one string, got shape " + t.shape());
    }
    return t.stringData()[0];
  }

  static String[] strings(Tensor t, int n, String what) {
    if (t.rank() != 1 || t.size() != n) {
      throw StatusException.invalidArgument(what + " must be a vector of " + n + " strings, got shape " + t.shape());
    }
    return t.stringData();
  }

  static void requireWholeTensors(String[] shapeAndSlices) {
    for (String s : shapeAndSlices) {
      if (!s.isEmpty()) {
        throw StatusException.invalidArgument(
            "psflow saves and restores whole tensors: every shape_and_slices entry must be \"\", got \"" + s + "\"");
      }
    }
  }

  /**
   * The rows {@code {start, count}} that a {@code shape_and_slices} entry asks of a stored tensor
   * of {@code stored} shape, or null for "" (the whole tensor). The entry is TensorFlow's
   * {@code "<full shape dims> <slice>"}, e.g. {@code "10 4 2,3:-"} for rows 2..4 of a [10,4]
   * tensor: psflow slices along axis 0 only, so every other dimension must be {@code -} (all of it).
   */
  static long[] rows(String spec, String name, Shape stored) {
    if (spec.isEmpty()) {
      return null;
    }
    String[] parts = spec.trim().split(" +");
    long[] dims = stored.toArray();
    String[] slice = parts[parts.length - 1].split(":", -1);
    try {
      if (parts.length != dims.length + 1 || slice.length != dims.length || dims.length == 0) {
        throw new IllegalArgumentException("needs " + dims.length + " dimensions and a slice");
      }
      for (int i = 0; i < dims.length; i++) {
        if (Long.parseLong(parts[i]) != dims[i]) {
          throw new IllegalArgumentException("the stored tensor has shape " + stored);
        }
      }
      for (int i = 1; i < dims.length; i++) {
        if (!slice[i].equals("-") && !slice[i].equals("0," + dims[i])) {
          throw new IllegalArgumentException("psflow restores row ranges (axis 0) only");
        }
      }
      if (slice[0].equals("-")) {
        return new long[] {0, dims[0]};
      }
      String[] startLength = slice[0].split(",", -1);
      long start = Long.parseLong(startLength[0]);
      long count = Long.parseLong(startLength[1]);
      if (startLength.length != 2 || start < 0 || count < 0 || start + count > dims[0]) {
        throw new IllegalArgumentException("rows " + slice[0] + " are outside " + dims[0] + " rows");
      }
      return new long[] {start, count};
    } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
      throw StatusException.invalidArgument("bad shape_and_slices \"" + spec + "\" for '" + name + "' "
          + stored + ": " + (e instanceof NumberFormatException || e instanceof ArrayIndexOutOfBoundsException
              ? "not of the form \"10 4 2,3:-\"" : e.getMessage()));
    }
  }

  /** TensorFlow's {@code shape_and_slices} entry for rows {@code [start, start + count)} of a tensor of {@code shape}. */
  static String rowsSpec(Shape shape, long start, long count) {
    StringBuilder b = new StringBuilder();
    long[] dims = shape.toArray();
    for (long d : dims) {
      b.append(d).append(' ');
    }
    b.append(start).append(',').append(count);
    for (int i = 1; i < dims.length; i++) {
      b.append(":-");
    }
    return b.toString();
  }

  /** {@code tensor_names} and an all-"" {@code shape_and_slices}, as constants in {@code s}. */
  static Output[] namesAndSlices(Scope s, List<String> names) {
    String[] slices = new String[names.size()];
    Arrays.fill(slices, "");
    Output n = Const.create(s.helperScope().withName("tensor_names"), Tensor.of(names.toArray(String[]::new), names.size()));
    Output sl = Const.create(s.helperScope().withName("shape_and_slices"), Tensor.of(slices, slices.length));
    return new Output[] {n, sl};
  }
}
