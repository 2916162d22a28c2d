package dev.psflow.ops;

import dev.psflow.graph.Output;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.Objects;

/**
 * A sparse tensor in TensorFlow's COO form: {@code values[i]} sits at the coordinates
 * {@code indices[i, :]} of a tensor of shape {@code denseShape}; every other element is zero.
 * {@code indices} is int64 {@code [N, rank]}, {@code values} {@code [N]} of any type, and
 * {@code denseShape} int64 {@code [rank]}, as {@code tf.SparseTensor}. Sparse embedding lookups
 * take their ids (and weights) this way, one row of the dense shape per example, with indices in
 * row-major order. An immutable triple of graph tensors; thread-safe.
 *
 * <pre>{@code
 * // example 0 has ids [3, 7], example 1 has id [2]
 * SparseTensor ids = SparseTensor.constant(tf, new long[][] {{0, 0}, {0, 1}, {1, 0}},
 *     Tensor.vector(3L, 7L, 2L), 2, 2);
 * Output combined = Embeddings.embeddingLookupSparse(tf, table, ids, null, "mod", "mean", null);
 * }</pre>
 */
public record SparseTensor(Output indices, Output values, Output denseShape) {
  public SparseTensor {
    Objects.requireNonNull(indices, "indices");
    Objects.requireNonNull(values, "values");
    Objects.requireNonNull(denseShape, "denseShape");
    if (indices.dtype() != DType.INT64 || denseShape.dtype() != DType.INT64) {
      throw new IllegalArgumentException("a SparseTensor's indices and dense_shape must be int64, got "
          + indices.dtype() + " and " + denseShape.dtype());
    }
    check(indices.shape(), 2, "indices");
    check(values.shape(), 1, "values");
    check(denseShape.shape(), 1, "dense_shape");
    Shape i = indices.shape();
    Shape v = values.shape();
    Shape d = denseShape.shape();
    if (i.hasKnownRank() && v.hasKnownRank() && !Shape.of(i.size(0)).isCompatibleWith(v)) {
      throw new IllegalArgumentException("a SparseTensor needs one value per row of indices, got indices " + i
          + " and values " + v);
    }
    if (i.hasKnownRank() && d.hasKnownRank() && !Shape.of(i.size(1)).isCompatibleWith(d)) {
      throw new IllegalArgumentException("a SparseTensor's indices " + i + " do not match its dense_shape " + d);
    }
  }

  private static void check(Shape s, int rank, String what) {
    if (s.hasKnownRank() && s.rank() != rank) {
      throw new IllegalArgumentException("a SparseTensor's " + what + " must be " + (rank == 1 ? "a vector" : "a matrix")
          + ", got shape " + s);
    }
  }

  /** A constant sparse tensor: {@code values[i]} at {@code indices[i]} of a tensor of {@code denseShape}. */
  public static SparseTensor constant(Ops tf, long[][] indices, Tensor values, long... denseShape) {
    long[] flat = new long[indices.length * denseShape.length];
    for (int i = 0; i < indices.length; i++) {
      if (indices[i].length != denseShape.length) {
        throw new IllegalArgumentException("indices[" + i + "] has " + indices[i].length + " coordinates for a dense shape of rank "
            + denseShape.length);
      }
      System.arraycopy(indices[i], 0, flat, i * denseShape.length, denseShape.length);
    }
    return new SparseTensor(tf.constant(flat, indices.length, denseShape.length), tf.constant(values),
        tf.constant(denseShape.clone()));
  }
}
