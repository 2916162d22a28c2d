package dev.psflow.ops.state;

import dev.psflow.exec.Kernel;
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
import java.util.ArrayList;
import java.util.List;

/**
 * ReportUninitializedVariables: the names of the variables whose is-initialized flag is false, as a
 * string vector (empty when all are ready). Takes one VarIsInitializedOp output per variable, each
 * computed on the variable's own task, so the report itself can run anywhere; this is the ready op
 * non-chief workers poll.
 */
public enum ReportUninitializedVariables implements OpDef {
  DEF;

  @Override
  public String type() {
    return "ReportUninitializedVariables";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    String[] names = op.attrStrings("var_names");
    if (names.length != op.numInputs()) {
      throw new IllegalArgumentException(names.length + " names for " + op.numInputs() + " flags");
    }
    for (Output in : op.inputs()) {
      if (in.dtype() != DType.BOOL) {
        throw new IllegalArgumentException("inputs must be BOOL is-initialized flags, got " + in.dtype());
      }
    }
    return List.of(TensorSpec.of(DType.STRING, Shape.of(-1)));
  }

  @Override
  public Kernel kernel(Operation op) {
    String[] names = op.attrStrings("var_names");
    return ctx -> {
      List<String> missing = new ArrayList<>();
      for (int i = 0; i < names.length; i++) {
        if (!ctx.input(i).boolData()[0]) {
          missing.add(names[i]);
        }
      }
      ctx.setOutput(0, Tensor.of(missing.toArray(String[]::new), missing.size()));
    };
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  /** The report over {@code variables}; each flag is computed next to its variable. */
  public static Output create(Scope s, List<Variable> variables) {
    List<Output> flags = new ArrayList<>();
    String[] names = new String[variables.size()];
    for (int i = 0; i < names.length; i++) {
      Variable v = variables.get(i);
      flags.add(VarIsInitializedOp.create(s.helperScope().withColocation(v.handle().op()), v.handle()));
      names[i] = v.name();
    }
    return s.opBuilder(DEF).addInputList(flags).setAttr("var_names", names).build().output(0);
  }
}
