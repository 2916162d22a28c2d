package dev.psflow.ops.state;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.VariableResource;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Indexing;
import dev.psflow.tensor.Shape;
import java.util.List;

/**
 * ResourceGather: rows of a resource variable at int {@code indices}, read straight from its
 * storage where the variable lives — shape {@code indices.shape + var.shape[1:]} — so an
 * embedding lookup moves only the rows it uses, never the table. Built colocated with the
 * variable (a ps task). Its gradient is an {@link IndexedSlices} for the variable (the rows read),
 * which the optimizers' sparse applies update in place. Attributes as TensorFlow's: dtype,
 * Tindices, batch_dims (0 only) and validate_indices (always validated on CPU).
 *
 * <pre>{@code
 * Output rows = tf.resourceGather(embeddings, ids);   // [batch, dim], on the variable's device
 * }</pre>
 */
public enum ResourceGather implements OpDef {
  DEF;

  @Override
  public String type() {
    return "ResourceGather";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    StateChecks.requireResource(op, 0);
    DType dtype = op.attrType("dtype");
    Output indices = op.input(1);
    if (!indices.dtype().isInteger()) {
      throw new IllegalArgumentException("indices must be int32 or int64, got " + indices.dtype());
    }
    if (op.attrLong("batch_dims") != 0) {
      throw new IllegalArgumentException("batch_dims must be 0, got " + op.attrLong("batch_dims"));
    }
    Shape var = VarHandleOp.declaredShape(op.input(0).op());
    if (!var.hasKnownRank() || !indices.shape().hasKnownRank()) {
      return List.of(TensorSpec.of(dtype, Shape.unknown()));
    }
    if (var.rank() < 1) {
      throw new IllegalArgumentException("cannot gather rows of a scalar variable");
    }
    Shape out = indices.shape();
    for (long d : var.subShape(1, var.rank()).toArray()) {
      out = out.append(d);
    }
    return List.of(TensorSpec.of(dtype, out));
  }

  @Override
  public Kernel kernel(Operation op) {
    DType dtype = op.attrType("dtype");
    return ctx -> {
      VariableResource v = StateChecks.variable(ctx, 0, dtype);
      // The live value, not a copy: gather copies only the rows asked for.
      ctx.setOutput(0, Indexing.gather(v.live(), ctx.input(1), 0));
    };
  }

  /**
   * The variable gets IndexedSlices(indices, dy, shape(var)) — row i of dy goes back to row
   * indices[i] — with indices flattened and dy reshaped to one row per index when indices is not
   * a vector. indices get none.
   */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      Output handle = op.input(0);
      Output indices = op.input(1);
      Shape var = VarHandleOp.declaredShape(handle.op());
      if (!var.isFullyDefined() || !indices.shape().hasKnownRank()) {
        throw new IllegalArgumentException("the gradient of ResourceGather '" + op.name()
            + "' needs a variable of fully defined shape and indices of known rank, got " + var + " and " + indices.shape());
      }
      Output ids = indices;
      Output values = grads.get(0);
      if (indices.shape().rank() != 1) {
        long[] rows = var.toArray();
        rows[0] = -1;
        ids = tf.reshape(indices, tf.constant(new int[] {-1}));
        values = tf.reshape(values, tf.constant(toInts(rows)));
      }
      Output denseShape = indices.dtype() == DType.INT64 ? tf.constant(var.toArray()) : tf.constant(toInts(var.toArray()));
      return java.util.Arrays.<Operand>asList(new IndexedSlices(ids, values, denseShape), null);
    };
  }

  private static int[] toInts(long[] a) {
    int[] r = new int[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = Math.toIntExact(a[i]);
    }
    return r;
  }

  @Override
  public boolean isStateful() {
    return true;
  }

  /** Rows of the variable behind {@code resource}; build it colocated with the variable. */
  public static Output create(Scope s, Operand resource, Operand indices, DType dtype) {
    return s.opBuilder(DEF).addInput(resource).addInput(indices).setAttr("dtype", dtype)
        .setAttr("Tindices", indices.dtype()).setAttr("batch_dims", 0).setAttr("validate_indices", true)
        .build().output(0);
  }
}
