package dev.psflow.train;

import dev.psflow.graph.Operand;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * A variable split along axis 0 into shards {@code name/part_0}, {@code name/part_1}, ..., each an
 * ordinary variable (so a replica device setter spreads them over the ps tasks and an optimizer
 * updates each where it lives). Used as an operand it is the concatenation of the shards' reads;
 * its gradient flows back to each shard as the matching slice. Each shard's initial value is built
 * colocated with the shard (as TensorFlow's callable initializers), so it is computed on the shard's
 * ps task and initializing a large table sends nothing over the wire. Each shard carries TensorFlow's
 * {@link SaveSliceInfo} (its rows of the whole), so a checkpoint of it restores into a graph that
 * partitions the same variable differently. Immutable.
 *
 * <p>Without a partitioner, {@link #create(Ops, String, Shape, DType, Initializer)} asks the replica
 * device setter {@code tf} places by: one shard up to its partition threshold (64 MiB by default),
 * one per ps task above it.
 *
 * <pre>{@code
 * PartitionedVariable w = PartitionedVariable.create(tf, "hid_w", Shape.of(784, 100), DType.FLOAT32,
 *     (t, shape) -> t.zeros(shape, DType.FLOAT32), VariablePartitioner.fixedSize(2));
 * Output h = tf.matMul(x, w);
 * }</pre>
 */
public final class PartitionedVariable implements Operand {
  /** The initial value of one shard, given its shape. */
  @FunctionalInterface
  public interface Initializer {
    Operand initialValue(Ops tf, Shape shardShape);
  }

  private final String name;
  private final Shape shape;
  private final List<Variable> shards;
  private final Output value;

  private PartitionedVariable(String name, Shape shape, List<Variable> shards, Output value) {
    this.name = name;
    this.shape = shape;
    this.shards = List.copyOf(shards);
    this.value = value;
  }

  /**
   * Partitioned as the replica device setter of {@code tf} says ({@link ReplicaDeviceSetter#partitioner()}):
   * split over all ps tasks when larger than its threshold, else one shard; one shard without a setter.
   */
  public static PartitionedVariable create(Ops tf, String name, Shape shape, DType dtype, Initializer init) {
    ReplicaDeviceSetter setter = ReplicaDeviceSetter.of(tf);
    return create(tf, name, shape, dtype, init, setter != null ? setter.partitioner() : VariablePartitioner.fixedSize(1));
  }

  public static PartitionedVariable create(Ops tf, String name, Shape shape, DType dtype, Initializer init,
      VariablePartitioner partitioner) {
    if (!shape.isFullyDefined() || shape.rank() < 1) {
      throw new IllegalArgumentException("partitioned variable " + name + " needs a fully defined shape of rank >= 1, got " + shape);
    }
    int n = partitioner.numShards(shape, dtype);
    long rows = shape.size(0);
    Ops scoped = tf.withSubScope(name);
    String fullName = scoped.scope().prefix().replaceAll("/$", "");
    List<Variable> shards = new ArrayList<>();
    List<Output> reads = new ArrayList<>();
    long offset = 0;
    for (int i = 0; i < n; i++) {
      // As TensorFlow: the first (rows % n) shards get one extra row.
      long size = rows / n + (i < rows % n ? 1 : 0);
      long[] dims = shape.toArray();
      dims[0] = size;
      Shape shardShape = Shape.of(dims);
      Variable v = Variable.create(scoped.scope(), "part_" + i, shardShape, dtype,
          near -> init.initialValue(Ops.create(near), shardShape), true);
      long[] at = new long[dims.length];
      at[0] = offset;
      new SaveSliceInfo(fullName, shape, at, shardShape).attachTo(v); // so a checkpoint restores onto other partitionings
      offset += size;
      shards.add(v);
      reads.add(v.value());
    }
    Output value = n == 1 ? reads.get(0) : scoped.withName("concat").concat(reads, 0);
    return new PartitionedVariable(fullName, shape, shards, value);
  }

  public String name() {
    return name;
  }

  public List<Variable> shards() {
    return shards;
  }

  @Override
  public Output asOutput() {
    return value;
  }

  @Override
  public Shape shape() {
    return shape;
  }

  @Override
  public String toString() {
    return "<PartitionedVariable " + name + " " + shape + " in " + shards.size() + " shards>";
  }
}
