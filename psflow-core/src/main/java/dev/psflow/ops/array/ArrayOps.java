package dev.psflow.ops.array;

import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The array ops of the {@link Ops} facade: shapes, reshaping, joining, slicing, gathering and
 * filling. Each method builds one op through its declaration; int arguments become constants.
 *
 * <pre>{@code
 * Output images = tf.reshape(x, -1, 28, 28);            // [?,784] -> [?,28,28]
 * Output rows = tf.gather(embeddings, ids);             // gradient: IndexedSlices
 * Output labels = tf.oneHot(classes, 10);
 * }</pre>
 */
public interface ArrayOps {
  /** Every op type of this family, for the {@link dev.psflow.ops.OpRegistry}. */
  static List<OpDef> definitions() {
    List<OpDef> all = new ArrayList<>(List.of(Reshape.DEF, ExpandDims.DEF, Squeeze.DEF, Transpose.DEF,
        InvertPermutation.DEF, ConcatV2.DEF, ConcatOffset.DEF, Slice.DEF, Pad.DEF, Fill.DEF, Tile.DEF, OneHot.DEF,
        GatherV2.DEF, UnsortedSegmentSum.DEF, BroadcastTo.DEF, Range.DEF));
    all.addAll(Arrays.asList(ShapeQuery.values()));
    all.addAll(Arrays.asList(FillLike.values()));
    // Embedding lookups (issue 8)
    all.addAll(List.of(DynamicPartition.DEF, Unique.DEF, StridedSlice.DEF, StridedSliceGrad.DEF, SegmentSum.DEF));
    all.addAll(Arrays.asList(DynamicStitch.values()));
    all.addAll(Arrays.asList(SparseSegmentReduction.values()));
    all.addAll(Arrays.asList(SparseSegmentGrad.values()));
    return List.copyOf(all);
  }

  Scope scope();

  Ops tf();

  default Output reshape(Operand x, Operand shape) {
    return Reshape.create(scope(), x, shape);
  }

  /** {@code x} with the given dims, one of which may be -1 (inferred). */
  default Output reshape(Operand x, int... shape) {
    return Reshape.create(scope(), x, tf().constant(shape));
  }

  /** The run-time shape of {@code x} as an INT32 vector. */
  default Output shape(Operand x) {
    return ShapeQuery.SHAPE.create(scope(), x, DType.INT32);
  }

  default Output shape(Operand x, DType outType) {
    return ShapeQuery.SHAPE.create(scope(), x, outType);
  }

  default Output size(Operand x) {
    return ShapeQuery.SIZE.create(scope(), x, DType.INT32);
  }

  default Output rank(Operand x) {
    return ShapeQuery.RANK.create(scope(), x);
  }

  default Output range(Operand start, Operand limit, Operand delta) {
    return Range.create(scope(), start, limit, delta);
  }

  default Output range(int start, int limit, int delta) {
    return Range.create(scope(), tf().constant(start), tf().constant(limit), tf().constant(delta));
  }

  /** {@code x} with a size-1 dimension inserted at {@code axis}. */
  default Output expandDims(Operand x, int axis) {
    return ExpandDims.create(scope(), x, tf().constant(axis));
  }

  default Output expandDims(Operand x, Operand axis) {
    return ExpandDims.create(scope(), x, axis);
  }

  /** {@code x} without the size-1 dimensions {@code axes}, or without every size-1 dimension. */
  default Output squeeze(Operand x, int... axes) {
    return Squeeze.create(scope(), x, Arrays.stream(axes).asLongStream().toArray());
  }

  /** {@code x} with its dimensions permuted; reversed when no permutation is given. */
  default Output transpose(Operand x, int... perm) {
    if (perm.length == 0) {
      int rank = x.shape().rank();
      if (rank < 0) {
        throw new IllegalArgumentException("transpose without perm needs an input of known rank, got " + x.shape());
      }
      perm = new int[rank];
      for (int i = 0; i < rank; i++) {
        perm[i] = rank - 1 - i;
      }
    }
    return Transpose.create(scope(), x, tf().constant(perm));
  }

  default Output transpose(Operand x, Operand perm) {
    return Transpose.create(scope(), x, perm);
  }

  /** The tensors joined along {@code axis} ({@code ConcatV2}). */
  default Output concat(List<? extends Operand> values, int axis) {
    return ConcatV2.create(scope(), values, tf().constant(axis));
  }

  default Output concat(List<? extends Operand> values, Operand axis) {
    return ConcatV2.create(scope(), values, axis);
  }

  /** The box of {@code x} at {@code begin} of extent {@code size} (-1: to the end). */
  default Output slice(Operand x, int[] begin, int[] size) {
    return Slice.create(scope(), x, tf().constant(begin), tf().constant(size));
  }

  default Output slice(Operand x, Operand begin, Operand size) {
    return Slice.create(scope(), x, begin, size);
  }

  /** {@code x} padded with zeros: {@code paddings[i] = {before, after}} for dimension i. */
  default Output pad(Operand x, int[][] paddings) {
    int[] flat = new int[2 * paddings.length];
    for (int i = 0; i < paddings.length; i++) {
      flat[2 * i] = paddings[i][0];
      flat[2 * i + 1] = paddings[i][1];
    }
    return Pad.create(scope(), x, tf().constant(flat, paddings.length, 2));
  }

  default Output pad(Operand x, Operand paddings) {
    return Pad.create(scope(), x, paddings);
  }

  default Output fill(Operand dims, Operand value) {
    return Fill.create(scope(), dims, value);
  }

  /** A tensor of zeros of {@code dtype} and fully defined {@code shape} (a Fill of a constant). */
  default Output zeros(Shape shape, DType dtype) {
    return Fill.create(scope(), tf().constant(shape.toIntArray()), tf().constant(dtype, 0));
  }

  default Output ones(Shape shape, DType dtype) {
    return Fill.create(scope(), tf().constant(shape.toIntArray()), tf().constant(dtype, 1));
  }

  default Output zerosLike(Operand x) {
    return FillLike.ZEROS_LIKE.create(scope(), x);
  }

  default Output onesLike(Operand x) {
    return FillLike.ONES_LIKE.create(scope(), x);
  }

  default Output tile(Operand x, int... multiples) {
    return Tile.create(scope(), x, tf().constant(multiples));
  }

  default Output tile(Operand x, Operand multiples) {
    return Tile.create(scope(), x, multiples);
  }

  /** FLOAT32 one-hot rows (1 at the index, 0 elsewhere) of {@code depth} for int {@code indices}. */
  default Output oneHot(Operand indices, int depth) {
    return OneHot.create(scope(), indices, tf().constant(depth), tf().constant(1f), tf().constant(0f), -1);
  }

  default Output oneHot(Operand indices, Operand depth, Operand on, Operand off, int axis) {
    return OneHot.create(scope(), indices, depth, on, off, axis);
  }

  /** Rows of {@code params} at {@code indices} (GatherV2 along axis 0). */
  default Output gather(Operand params, Operand indices) {
    return GatherV2.create(scope(), params, indices, tf().constant(0));
  }

  default Output gather(Operand params, Operand indices, int axis) {
    return GatherV2.create(scope(), params, indices, tf().constant(axis));
  }

  default Output unsortedSegmentSum(Operand data, Operand segmentIds, Operand numSegments) {
    return UnsortedSegmentSum.create(scope(), data, segmentIds, numSegments);
  }

  default Output unsortedSegmentSum(Operand data, Operand segmentIds, int numSegments) {
    return UnsortedSegmentSum.create(scope(), data, segmentIds, tf().constant(numSegments));
  }

  default Output broadcastTo(Operand x, Operand shape) {
    return BroadcastTo.create(scope(), x, shape);
  }

  default Output broadcastTo(Operand x, int... shape) {
    return BroadcastTo.create(scope(), x, tf().constant(shape));
  }

  /** The offsets of each input of a ConcatV2 along {@code axis}, from their shapes (one output each). */
  default Operation concatOffset(Operand axis, List<? extends Operand> shapes) {
    return ConcatOffset.create(scope(), axis, shapes);
  }

  // ---- Embedding lookups (issue 8): partition and stitch, unique, strided slices, segment sums ----

  /** {@code data} split into {@code numPartitions} tensors by the int32 {@code partitions} ({@code DynamicPartition}). */
  default List<Output> dynamicPartition(Operand data, Operand partitions, int numPartitions) {
    return DynamicPartition.create(scope(), data, partitions, numPartitions);
  }

  /** {@code merged[indices[i][j]] = data[i][j]} ({@code DynamicStitch}; the last write wins). */
  default Output dynamicStitch(List<? extends Operand> indices, List<? extends Operand> data) {
    return DynamicStitch.DYNAMIC_STITCH.create(scope(), indices, data);
  }

  /** As {@link #dynamicStitch}, as TensorFlow's {@code ParallelDynamicStitch} (no order promised for repeated indices). */
  default Output parallelDynamicStitch(List<? extends Operand> indices, List<? extends Operand> data) {
    return DynamicStitch.PARALLEL.create(scope(), indices, data);
  }

  /** The distinct elements y of the vector {@code x} and idx (int32) with x = y[idx]: [y, idx]. */
  default List<Output> unique(Operand x) {
    return Unique.create(scope(), x, DType.INT32);
  }

  default List<Output> unique(Operand x, DType outIdx) {
    return Unique.create(scope(), x, outIdx);
  }

  /** {@code x[begin:end:strides]} on each dimension (NumPy's basic slicing; see {@link StridedSlice}). */
  default Output stridedSlice(Operand x, int[] begin, int[] end, int[] strides) {
    return stridedSlice(x, begin, end, strides, StridedSlice.Masks.NONE);
  }

  default Output stridedSlice(Operand x, int[] begin, int[] end, int[] strides, StridedSlice.Masks masks) {
    return StridedSlice.create(scope(), x, tf().constant(begin), tf().constant(end), tf().constant(strides), masks);
  }

  default Output stridedSlice(Operand x, Operand begin, Operand end, Operand strides, StridedSlice.Masks masks) {
    return StridedSlice.create(scope(), x, begin, end, strides, masks);
  }

  /** Rows of {@code data} summed by the sorted {@code segmentIds} ({@code SegmentSum}). */
  default Output segmentSum(Operand data, Operand segmentIds) {
    return SegmentSum.create(scope(), data, segmentIds);
  }

  /** Σ data[indices[i]] per sorted int32 segment ({@code SparseSegmentSum}). */
  default Output sparseSegmentSum(Operand data, Operand indices, Operand segmentIds) {
    return SparseSegmentReduction.SUM.create(scope(), data, indices, segmentIds);
  }

  /** The mean of data[indices[i]] per sorted int32 segment ({@code SparseSegmentMean}). */
  default Output sparseSegmentMean(Operand data, Operand indices, Operand segmentIds) {
    return SparseSegmentReduction.MEAN.create(scope(), data, indices, segmentIds);
  }

  /** Σ data[indices[i]] / √count per sorted int32 segment ({@code SparseSegmentSqrtN}). */
  default Output sparseSegmentSqrtN(Operand data, Operand indices, Operand segmentIds) {
    return SparseSegmentReduction.SQRT_N.create(scope(), data, indices, segmentIds);
  }
}
