package dev.psflow.ops.core;

import dev.psflow.exec.Kernel;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.Tensor;
import java.util.List;

/** Const: outputs the tensor held in its {@code value} attr; {@code dtype} names its type. */
public enum Const implements OpDef {
  DEF;

  @Override
  public String type() {
    return "Const";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Tensor v = op.attrTensor("value");
    // An imported GraphDef carries both; a consumer typed by the attr would misread the value.
    if (op.hasAttr("dtype") && op.attrType("dtype") != v.dtype()) {
      throw new IllegalArgumentException("its dtype attr is " + op.attrType("dtype") + " but its value is a "
          + v.dtype() + " tensor");
    }
    return List.of(TensorSpec.of(v.dtype(), v.shape()));
  }

  @Override
  public Kernel kernel(Operation op) {
    // Kernels never write their inputs, so every step can share the one tensor.
    Tensor v = op.attrTensor("value");
    return ctx -> ctx.setOutput(0, v);
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  public static Output create(Scope s, Tensor value) {
    return s.opBuilder(DEF).setAttr("value", value).setAttr("dtype", value.dtype()).build().output(0);
  }
}
