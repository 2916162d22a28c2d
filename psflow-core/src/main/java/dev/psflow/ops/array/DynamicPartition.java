package dev.psflow.ops.array;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * DynamicPartition: splits {@code data} into {@code num_partitions} tensors by the int32
 * {@code partitions} (whose shape is a prefix of data's): output {@code p} holds, in order, the
 * slices {@code data[i...]} with {@code partitions[i...] == p}, so it has shape
 * {@code [count(p)] + data.shape[partitions.rank:]}. A partition outside [0, num_partitions) is
 * INVALID_ARGUMENT. {@link DynamicStitch} puts the pieces back.
 *
 * <pre>{@code
 * Output shard = tf.cast(tf.floorMod(ids, tf.constant(3L)), DType.INT32);
 * List<Output> idsByShard = tf.dynamicPartition(ids, shard, 3);   // ids [5, 3, 4] -> [3], [4], [5]
 * }</pre>
 */
public enum DynamicPartition implements OpDef {
  DEF;

  @Override
  public String type() {
    return "DynamicPartition";
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    Output data = op.input(0);
    Output partitions = op.input(1);
    if (partitions.dtype() != DType.INT32) {
      throw new IllegalArgumentException("partitions must be int32, got " + partitions.dtype());
    }
    int n = op.attrInt("num_partitions");
    if (n < 1) {
      throw new IllegalArgumentException("num_partitions must be at least 1, got " + n);
    }
    Shape d = data.shape();
    Shape p = partitions.shape();
    Shape piece = Shape.unknown();
    if (d.hasKnownRank() && p.hasKnownRank()) {
      if (p.rank() > d.rank() || !d.subShape(0, p.rank()).isCompatibleWith(p)) {
        throw new IllegalArgumentException("data.shape = " + d + " does not start with partitions.shape = " + p);
      }
      piece = Shape.of(-1L);
      for (long k : d.subShape(p.rank(), d.rank()).toArray()) {
        piece = piece.append(k);
      }
    }
    List<TensorSpec> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(TensorSpec.of(data.dtype(), piece));
    }
    return out;
  }

  @Override
  public Kernel kernel(Operation op) {
    int n = op.attrInt("num_partitions");
    return ctx -> {
      Tensor data = ctx.input(0);
      Tensor partitions = ctx.input(1);
      long[] d = data.shape().toArray();
      long[] p = partitions.shape().toArray();
      if (p.length > d.length || !Arrays.equals(Arrays.copyOf(d, p.length), p)) {
        throw StatusException.invalidArgument("data.shape must start with partitions.shape, got data.shape = "
            + data.shape() + ", partitions.shape = " + partitions.shape());
      }
      int[] parts = partitions.intData();
      int[] counts = new int[n];
      for (int i = 0; i < parts.length; i++) {
        if (parts[i] < 0 || parts[i] >= n) {
          throw StatusException.invalidArgument("partitions[" + i + "] = " + parts[i] + " is not in [0, " + n + ")");
        }
        counts[parts[i]]++;
      }
      int slice = parts.length == 0 ? 0 : data.size() / parts.length;
      Object[] outs = new Object[n];
      for (int k = 0; k < n; k++) {
        outs[k] = java.lang.reflect.Array.newInstance(data.data().getClass().componentType(), counts[k] * slice);
      }
      int[] filled = new int[n];
      for (int i = 0; i < parts.length; i++) {
        int k = parts[i];
        System.arraycopy(data.data(), i * slice, outs[k], filled[k]++ * slice, slice);
      }
      for (int k = 0; k < n; k++) {
        long[] dims = new long[d.length - p.length + 1];
        dims[0] = counts[k];
        System.arraycopy(d, p.length, dims, 1, dims.length - 1);
        ctx.setOutput(k, Tensor.wrap(data.dtype(), Shape.of(dims), outs[k]));
      }
    };
  }

  /**
   * Each piece's gradient goes back to the positions it came from (TensorFlow's): the positions
   * 0..size(partitions)−1, shaped as partitions, are partitioned the same way, the gradients
   * stitched by them, and the result reshaped to data's shape. partitions gets none.
   */
  @Override
  public GradientFn gradient() {
    return (tf, op, grads) -> {
      Output data = op.input(0);
      Output partitions = op.input(1);
      int n = op.numOutputs();
      Output positions = tf.reshape(tf.range(tf.constant(0), tf.size(partitions), tf.constant(1)), tf.shape(partitions));
      List<Output> where = tf.dynamicPartition(positions, partitions, n);
      Output stitched = DynamicStitch.PARALLEL.create(tf.scope(), where, grads);
      List<Operand> r = GradientFn.nulls(2);
      r.set(0, tf.reshape(stitched, StaticValue.shapeOf(tf, data)));
      return r;
    };
  }

  /** The {@code numPartitions} outputs. */
  public static List<Output> create(Scope s, Operand data, Operand partitions, int numPartitions) {
    Operation op = s.opBuilder(DEF).addInput(data).addInput(partitions).setAttr("T", data.dtype())
        .setAttr("num_partitions", numPartitions).build();
    List<Output> out = new ArrayList<>();
    for (int i = 0; i < numPartitions; i++) {
      out.add(op.output(i));
    }
    return out;
  }
}
