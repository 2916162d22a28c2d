package dev.psflow.ops.io;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.KernelContext;
import dev.psflow.exec.VariableResource;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.state.VarHandleOp;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.ResourceHandle;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SaveV2: writes its tensor inputs to one safetensors file, atomically, on the task where it runs.
 * Inputs as TensorFlow's: {@code prefix} (string scalar; here the shard file's full path, decided by
 * the caller at run time), {@code tensor_names} and {@code shape_and_slices} (string vectors, one
 * entry per tensor; psflow writes whole tensors only, so every slice must be ""), then the
 * tensors. A tensor input may also be a variable's resource handle: the kernel then streams the
 * variable's live storage to the file (no ReadVariableOp copy, so saving an N-byte table costs one
 * {@link Safetensors#CHUNK_BYTES} buffer, not N more bytes), with the same lack of locking as
 * TensorFlow's reads: a concurrent asynchronous apply may be half in the file. A saver passes the
 * handles and colocates the save with the variables: each ps task then writes its own variables,
 * and no value crosses the network. The file must be
 * where the device's {@link dev.psflow.exec.FileAccessPolicy} allows (a server's checkpoint root). TensorFlow's
 * {@code dtypes} attr is not kept: the inputs carry their types.
 */
public enum SaveV2 implements OpDef {
  DEF;

  @Override
  public String type() {
    return "SaveV2";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    int n = op.numInputs() - 3;
    if (n < 0) {
      throw new IllegalArgumentException("needs prefix, tensor_names and shape_and_slices inputs, got " + op.numInputs());
    }
    IoChecks.requireStrings(op, 0, "prefix", Shape.scalar());
    IoChecks.requireStrings(op, 1, "tensor_names", Shape.of(n));
    IoChecks.requireStrings(op, 2, "shape_and_slices", Shape.of(n));
    for (int i = 3; i < op.numInputs(); i++) {
      DType t = op.input(i).dtype();
      if (t == DType.RESOURCE && op.input(i).op().def() == VarHandleOp.DEF) {
        t = op.input(i).op().attrType("dtype");
      }
      if (t != DType.RESOURCE && Safetensors.name(t).isEmpty()) {
        throw new IllegalArgumentException("cannot save " + op.input(i).name() + " of type " + t
            + ": checkpoints hold float, double, int32, int64 and bool tensors");
      }
    }
    return List.of();
  }

  @Override
  public Kernel kernel(Operation op) {
    return ctx -> {
      int n = ctx.numInputs() - 3;
      Path file = ctx.device().files().check("SaveV2", IoChecks.scalarString(ctx.input(0), "prefix"));
      String[] names = IoChecks.strings(ctx.input(1), n, "tensor_names");
      IoChecks.requireWholeTensors(IoChecks.strings(ctx.input(2), n, "shape_and_slices"));
      List<Tensor> tensors = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        Tensor in = ctx.input(3 + i);
        tensors.add(in.dtype() == DType.RESOURCE ? liveValue(ctx, in.resourceHandle()) : in);
      }
      Map<String, String> metadata = new LinkedHashMap<>();
      metadata.put("producer", "psflow");
      metadata.put("device", ctx.device().name());
      long start = System.nanoTime();
      try {
        Safetensors.write(file, Arrays.asList(names), tensors, metadata);
      } catch (IllegalArgumentException e) {
        throw StatusException.invalidArgument("cannot save to " + file + ": " + e.getMessage());
      }
      ctx.device().events().checkpointSaved(fileSize(file), System.nanoTime() - start);
    };
  }

  /** The variable's storage itself, not a copy: the write streams from it. */
  private static Tensor liveValue(KernelContext ctx, ResourceHandle h) {
    VariableResource v = ctx.resources().find(h, VariableResource.class);
    if (v == null) {
      throw StatusException.failedPrecondition(
          "uninitialized variable " + h.name() + ": run its initializer (or the global variables initializer) first");
    }
    return v.live();
  }

  /** The bytes written (for the task's metrics), 0 when the file cannot be measured. */
  private static long fileSize(Path file) {
    try {
      return Files.size(file);
    } catch (IOException | SecurityException e) {
      return 0;
    }
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  @Override
  public boolean isStateful() {
    return true;
  }

  /** Disk I/O: worth a thread of its own, so the other ready ops of the step go on. */
  @Override
  public boolean isExpensive() {
    return true;
  }

  public static Operation create(Scope s, Operand prefix, Operand tensorNames, Operand shapeAndSlices,
      List<? extends Operand> tensors) {
    return s.opBuilder(DEF).addInput(prefix).addInput(tensorNames).addInput(shapeAndSlices).addInputList(tensors).build();
  }

  /** Builds the names and (whole-tensor) slices as constants in {@code s}, next to the save. */
  public static Operation create(Scope s, Operand prefix, List<String> names, List<? extends Operand> tensors) {
    Output[] nameAndSlices = IoChecks.namesAndSlices(s, names);
    return create(s, prefix, nameAndSlices[0], nameAndSlices[1], tensors);
  }
}
