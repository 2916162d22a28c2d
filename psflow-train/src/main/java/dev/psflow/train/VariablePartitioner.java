package dev.psflow.train;

import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;

/**
 * How many shards a variable is split into along axis 0: one function. Shards of a partitioned
 * variable land on different ps tasks under a replica device setter.
 */
@FunctionalInterface
public interface VariablePartitioner {
  int numShards(Shape shape, DType dtype);

  /** Always {@code n} shards (fewer when axis 0 is shorter): TensorFlow's {@code fixed_size_partitioner}. */
  static VariablePartitioner fixedSize(int n) {
    if (n <= 0) {
      throw new IllegalArgumentException("fixedSize needs at least one shard, got " + n);
    }
    return (shape, dtype) -> (int) Math.max(1, Math.min(n, shape.size(0)));
  }

  /**
   * As many shards as keep each at least {@code minSliceBytes}, at most {@code maxShards}:
   * TensorFlow's {@code min_max_variable_partitioner} (default slice 256 KiB).
   */
  static VariablePartitioner minMax(int maxShards, long minSliceBytes) {
    if (maxShards <= 0 || minSliceBytes <= 0) {
      throw new IllegalArgumentException("minMax needs maxShards > 0 and minSliceBytes > 0, got "
          + maxShards + " and " + minSliceBytes);
    }
    return (shape, dtype) -> {
      long bytes = shape.numElements() * Math.max(1, dtype.byteSize());
      long shards = Math.max(1, bytes / minSliceBytes);
      return (int) Math.max(1, Math.min(Math.min(maxShards, shards), shape.size(0)));
    };
  }

  /**
   * One shard up to {@code thresholdBytes}, {@code shards} above it (fewer when axis 0 is shorter):
   * the replica device setter's automatic partitioning of large variables.
   */
  static VariablePartitioner aboveThreshold(long thresholdBytes, int shards) {
    if (thresholdBytes <= 0 || shards <= 0) {
      throw new IllegalArgumentException("aboveThreshold needs thresholdBytes > 0 and shards > 0, got "
          + thresholdBytes + " and " + shards);
    }
    return (shape, dtype) -> shape.numElements() * Math.max(1, dtype.byteSize()) > thresholdBytes
        ? (int) Math.max(1, Math.min(shards, shape.size(0))) : 1;
  }
}
