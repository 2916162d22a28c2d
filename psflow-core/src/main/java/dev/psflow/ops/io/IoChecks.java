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

  /** {@code tensor_names} and an all-"" {@code shape_and_slices}, as constants in {@code s}. */
  static Output[] namesAndSlices(Scope s, List<String> names) {
    String[] slices = new String[names.size()];
    Arrays.fill(slices, "");
    Output n = Const.create(s.helperScope().withName("tensor_names"), Tensor.of(names.toArray(String[]::new), names.size()));
    Output sl = Const.create(s.helperScope().withName("shape_and_slices"), Tensor.of(slices, slices.length));
    return new Output[] {n, sl};
  }
}
