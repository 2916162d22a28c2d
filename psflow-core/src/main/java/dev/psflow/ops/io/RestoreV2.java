package dev.psflow.ops.io;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * RestoreV2: reads tensors from safetensors files on the task where it runs; one output per name,
 * of the type in {@code dtypes}, shaped as the file says. Inputs as TensorFlow's: {@code prefix},
 * {@code tensor_names}, {@code shape_and_slices}: "" for a whole tensor, or TensorFlow's slice spec for a
 * range of rows ({@code "10 4 2,3:-"}: rows 2..4 of the stored [10,4] tensor; see {@link #rowsSpec}),
 * which reads only the chunks holding those rows. Here {@code prefix} is
 * either one file (a string scalar: every tensor comes from it) or one file per tensor (a vector as
 * long as {@code tensor_names}): the chief resolves each variable's shard through the checkpoint
 * index, so a checkpoint written by two ps tasks restores into a cluster of three. A file asked
 * only for whole tensors is verified whole (header, bounds, CRC32C); one asked for row ranges is
 * verified chunk by chunk as read. Either way before any tensor is returned; a saver
 * feeds the outputs to AssignVariableOps colocated with their variables. Every file must be where
 * the device's {@link dev.psflow.exec.FileAccessPolicy} allows (a server's checkpoint root).
 *
 * <p>{@code dtypes} holds TensorFlow's DataType numbers (1 = float, 9 = int64...) as a list of
 * ints: psflow's graph attrs have no list-of-types kind yet; switch it when they do.
 */
public enum RestoreV2 implements OpDef {
  DEF;

  @Override
  public String type() {
    return "RestoreV2";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    DType[] dtypes = dtypes(op);
    if (op.numInputs() != 3) {
      throw new IllegalArgumentException("needs prefix, tensor_names and shape_and_slices inputs, got " + op.numInputs());
    }
    Shape prefix = op.input(0).shape();
    if (prefix.rank() > 1) {
      throw new IllegalArgumentException("prefix must be a string scalar or vector, got shape " + prefix);
    }
    IoChecks.requireStrings(op, 0, "prefix", prefix.rank() == 1 ? Shape.of(dtypes.length) : Shape.unknown());
    IoChecks.requireStrings(op, 1, "tensor_names", Shape.of(dtypes.length));
    IoChecks.requireStrings(op, 2, "shape_and_slices", Shape.of(dtypes.length));
    List<TensorSpec> out = new ArrayList<>(dtypes.length);
    for (DType t : dtypes) {
      if (Safetensors.name(t).isEmpty()) {
        throw new IllegalArgumentException("cannot restore " + t + " tensors: checkpoints hold float, double, int32, int64 and bool");
      }
      out.add(TensorSpec.of(t, Shape.unknown()));
    }
    return out;
  }

  @Override
  public Kernel kernel(Operation op) {
    DType[] dtypes = dtypes(op);
    return ctx -> {
      int n = dtypes.length;
      String[] names = IoChecks.strings(ctx.input(1), n, "tensor_names");
      String[] slices = IoChecks.strings(ctx.input(2), n, "shape_and_slices");
      Tensor prefix = ctx.input(0);
      String[] files = prefix.rank() == 0 ? null : IoChecks.strings(prefix, n, "prefix");
      Map<String, List<Integer>> byFile = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        byFile.computeIfAbsent(files == null ? prefix.stringData()[0] : files[i], f -> new ArrayList<>()).add(i);
      }
      Tensor[] out = new Tensor[n];
      for (Map.Entry<String, List<Integer>> e : byFile.entrySet()) {
        Path file = ctx.device().files().check("RestoreV2", e.getKey());
        List<Integer> entries = e.getValue();
        boolean whole = entries.stream().allMatch(i -> slices[i].isEmpty());
        List<Tensor> read = whole ? readWhole(file, entries, names) : readRows(file, entries, names, slices);
        for (int k = 0; k < read.size(); k++) {
          int i = entries.get(k);
          if (read.get(k).dtype() != dtypes[i]) {
            throw StatusException.invalidArgument(file + " holds '" + names[i] + "' as " + read.get(k).dtype()
                + " but " + dtypes[i] + " was expected");
          }
          out[i] = read.get(k);
        }
      }
      // Outputs are set only once every file has been read and verified: a corrupt shard restores nothing.
      for (int i = 0; i < n; i++) {
        ctx.setOutput(i, out[i]);
      }
    };
  }

  /** Whole tensors: the file is read once and every byte checked against its CRC32C. */
  private static List<Tensor> readWhole(Path file, List<Integer> entries, String[] names) {
    List<String> wanted = new ArrayList<>();
    entries.forEach(i -> wanted.add(names[i]));
    return Safetensors.read(file, wanted);
  }

  /** Some entries are row ranges: read only those rows' chunks, each checked against its chunk CRC32C. */
  private static List<Tensor> readRows(Path file, List<Integer> entries, String[] names, String[] slices) {
    SafetensorsHeader h = SafetensorsHeader.read(file);
    List<Tensor> out = new ArrayList<>();
    for (int i : entries) {
      SafetensorsHeader.Entry e = h.entry(names[i])
          .orElseThrow(() -> StatusException.notFound(file + " holds no tensor named '" + names[i] + "'"));
      long[] rows = IoChecks.rows(slices[i], names[i], e.shape());
      long all = e.shape().rank() == 0 ? 1 : e.shape().size(0);
      out.add(SafetensorsRows.read(file, h, e, rows == null ? 0 : rows[0], rows == null ? all : rows[1]));
    }
    return out;
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  @Override
  public boolean isStateful() {
    return true;
  }

  @Override
  public boolean isExpensive() {
    return true;
  }

  static DType[] dtypes(Operation op) {
    long[] numbers = op.attrLongs("dtypes");
    DType[] r = new DType[numbers.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = DType.fromNumber(Math.toIntExact(numbers[i]));
    }
    return r;
  }

  public static List<Output> create(Scope s, Operand prefix, Operand tensorNames, Operand shapeAndSlices, List<DType> dtypes) {
    long[] numbers = new long[dtypes.size()];
    for (int i = 0; i < numbers.length; i++) {
      numbers[i] = dtypes.get(i).number();
    }
    Operation op = s.opBuilder(DEF).addInput(prefix).addInput(tensorNames).addInput(shapeAndSlices)
        .setAttr("dtypes", numbers).build();
    List<Output> out = new ArrayList<>(numbers.length);
    for (int i = 0; i < numbers.length; i++) {
      out.add(op.output(i));
    }
    return out;
  }

  /** The {@code shape_and_slices} entry for rows {@code [start, start + count)} of a stored tensor of {@code shape}. */
  public static String rowsSpec(Shape shape, long start, long count) {
    return IoChecks.rowsSpec(shape, start, count);
  }

  /** Builds the names and (whole-tensor) slices as constants in {@code s}, next to the restore. */
  public static List<Output> create(Scope s, Operand prefix, List<String> names, List<DType> dtypes) {
    if (names.size() != dtypes.size()) {
      throw new IllegalArgumentException(names.size() + " names for " + dtypes.size() + " dtypes");
    }
    Output[] nameAndSlices = IoChecks.namesAndSlices(s, names);
    return create(s, prefix, nameAndSlices[0], nameAndSlices[1], dtypes);
  }
}
