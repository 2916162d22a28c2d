package dev.psflow.train;

import dev.psflow.graph.Operand;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.SparseTensor;
import dev.psflow.ops.array.StridedSlice;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * TensorFlow 1.x's {@code tf.nn.embedding_lookup} and {@code tf.nn.embedding_lookup_sparse}, built
 * op for op as {@code embedding_ops.py} builds them, so that a lookup moves only the rows it uses.
 * With one shard the rows come from a {@code ResourceGather} colocated with the variable. With
 * several (a {@link PartitionedVariable}'s shards or a list of variables) each id is assigned a
 * shard — {@code "mod"}: shard {@code id % n}, row {@code id / n}; {@code "div"}: contiguous
 * ranges, the first {@code rows % n} shards one row longer, as a PartitionedVariable splits its
 * rows — the ids and their positions are split by DynamicPartition, each shard's rows gathered by
 * a ResourceGather placed with that shard (on its ps task), and the pieces put back in order by
 * ParallelDynamicStitch. Each shard's gradient is then an {@link dev.psflow.ops.IndexedSlices} of
 * the rows it served, and an {@link Optimizer}'s sparse apply, colocated with the shard, updates
 * only those rows: per step each ps receives its ids and the gradient rows and sends the rows.
 *
 * <p>Note the ids' meaning depends on the strategy: with "div", {@code embeddingLookup(tf, w, ids)}
 * equals {@code tf.gather(w, ids)} of the PartitionedVariable (its value is the shards in order);
 * with "mod" (TensorFlow's default) id i is row {@code i / n} of shard {@code i % n}. Use the same
 * strategy for every lookup of a table. Ids outside the table fail the step with INVALID_ARGUMENT.
 *
 * <p>Static methods only; the graph pieces are built through the given {@link Ops} (its device
 * function places the id arithmetic on the worker) under the name scope {@code embedding_lookup}.
 *
 * <pre>{@code
 * Ops tf = Ops.create(graph).withDeviceFunction(ReplicaDeviceSetter.forCluster(cluster, "/job:worker/task:0"));
 * PartitionedVariable table = PartitionedVariable.create(tf, "embeddings", Shape.of(50_000, 32), DType.FLOAT32,
 *     (t, shape) -> t.randomUniform(shape, DType.FLOAT32, -0.05f, 0.05f), VariablePartitioner.fixedSize(3));
 * Output rows = Embeddings.embeddingLookup(tf, table, ids, "div", null);   // [batch, 32]
 * Operation train = new GradientDescentOptimizer(0.5).minimize(loss(rows), globalStep);
 * }</pre>
 */
public final class Embeddings {
  /** Id {@code i} is row {@code i / n} of shard {@code i % n} (TensorFlow's default). */
  public static final String MOD = "mod";
  /** Ids are split into contiguous ranges, the first {@code rows % n} shards one longer (a PartitionedVariable's layout). */
  public static final String DIV = "div";

  private Embeddings() {}

  /** The rows of a single variable at {@code ids}: a ResourceGather on the variable's device. */
  public static Output embeddingLookup(Ops tf, Variable params, Operand ids) {
    return embeddingLookup(tf, List.of(params), ids, MOD, null);
  }

  /** {@link #embeddingLookup(Ops, List, Operand, String, Double)} over the shards of {@code params}. */
  public static Output embeddingLookup(Ops tf, PartitionedVariable params, Operand ids, String partitionStrategy,
      Double maxNorm) {
    return embeddingLookup(tf, params.shards(), ids, partitionStrategy, maxNorm);
  }

  /**
   * The rows of the table split into {@code params} (variables, read with ResourceGather, or any
   * tensors, read with GatherV2 colocated with them) at int32 or int64 {@code ids} of any shape:
   * the result has shape {@code ids.shape + row shape}.
   *
   * @param partitionStrategy {@link #MOD} or {@link #DIV}; only matters for several shards
   * @param maxNorm when not null, each row whose L2 norm exceeds it is scaled down to it
   */
  public static Output embeddingLookup(Ops tf, List<? extends Operand> params, Operand ids, String partitionStrategy,
      Double maxNorm) {
    if (params.isEmpty()) {
      throw new IllegalArgumentException("embeddingLookup needs at least one params tensor (shard)");
    }
    if (!MOD.equals(partitionStrategy) && !DIV.equals(partitionStrategy)) {
      throw new IllegalArgumentException("Unrecognized partition strategy: " + partitionStrategy + " (use \"mod\" or \"div\")");
    }
    Output idsOut = ids.asOutput();
    if (!idsOut.dtype().isInteger()) {
      throw new IllegalArgumentException("embeddingLookup ids must be int32 or int64, got " + idsOut.dtype());
    }
    Ops scoped = tf.withSubScope("embedding_lookup");
    int np = params.size();
    if (np == 1) {
      Operand p = params.get(0);
      Output result = clip(near(scoped, p), gather(scoped, p, idsOut), idsOut, maxNorm);
      // The result itself carries no colocation with the params, as with several shards.
      return scoped.identity(result);
    }
    Output flatIds = scoped.reshape(idsOut, -1);
    Output originalIndices = scoped.range(scoped.constant(0), scoped.size(flatIds), scoped.constant(1));
    Output[] assignment = MOD.equals(partitionStrategy)
        ? modAssignment(scoped, flatIds, np) : divAssignment(scoped, flatIds, params);
    Output pAssignments = scoped.cast(assignment[0], DType.INT32);
    List<Output> gatherIds = scoped.dynamicPartition(assignment[1], pAssignments, np);
    List<Output> pIndices = scoped.dynamicPartition(originalIndices, pAssignments, np);
    List<Output> partitioned = new ArrayList<>();
    for (int p = 0; p < np; p++) {
      partitioned.add(gather(scoped, params.get(p), gatherIds.get(p)));
    }
    Output ret = scoped.parallelDynamicStitch(pIndices, partitioned);
    Output shape = scoped.concat(List.of(scoped.shape(idsOut), elementShape(scoped, params)), 0);
    return clip(scoped, scoped.reshape(ret, shape), idsOut, maxNorm);
  }

  /** "mod": shard {@code id % n}, row {@code id / n}. */
  private static Output[] modAssignment(Ops tf, Output flatIds, int np) {
    Output n = tf.constant(flatIds.dtype(), np);
    return new Output[] {tf.floorMod(flatIds, n), tf.floorDiv(flatIds, n)};
  }

  /**
   * "div": with {@code total} rows over n shards, the first {@code extras = total % n} shards hold
   * {@code total / n + 1} rows, the others {@code total / n}; TensorFlow's arithmetic, which
   * needs no branch: shard = max(id / (per + 1), (id − extras) / per).
   */
  private static Output[] divAssignment(Ops tf, Output flatIds, List<? extends Operand> params) {
    int np = params.size();
    DType t = flatIds.dtype();
    Output numTotalIds = totalRows(tf, params, t);
    Output n = tf.constant(t, np);
    Output idsPerPartition = tf.floorDiv(numTotalIds, n);
    Output extras = tf.floorMod(numTotalIds, n);
    Output longer = tf.add(idsPerPartition, tf.constant(t, 1));
    Output pAssignments = tf.maximum(tf.floorDiv(flatIds, longer), tf.floorDiv(tf.sub(flatIds, extras), idsPerPartition));
    Output newIds = tf.select(tf.less(pAssignments, extras), tf.floorMod(flatIds, longer),
        tf.floorMod(tf.sub(flatIds, extras), idsPerPartition));
    return new Output[] {pAssignments, newIds};
  }

  /** Σ rows of the shards: a constant when every shard's first dimension is known, else summed at run time. */
  private static Output totalRows(Ops tf, List<? extends Operand> params, DType t) {
    long total = 0;
    for (Operand p : params) {
      long rows = p.shape().hasKnownRank() && p.shape().rank() >= 1 ? p.shape().size(0) : -1;
      if (rows < 0) {
        total = -1;
        break;
      }
      total += rows;
    }
    if (total >= 0) {
      return tf.constant(t, total);
    }
    List<Output> sizes = new ArrayList<>();
    for (Operand p : params) {
      Ops at = near(tf, p);
      sizes.add(tf.cast(at.gather(at.shape(p.asOutput()), at.constant(0)), t));
    }
    return tf.addN(sizes);
  }

  /** The shape of one row: params[0].shape[1:] merged over the shards, as a constant when fully known. */
  private static Output elementShape(Ops tf, List<? extends Operand> params) {
    Shape element = null;
    for (Operand p : params) {
      Shape s = p.shape();
      Shape rows = s.hasKnownRank() ? s.subShape(1, s.rank()) : Shape.unknown();
      if (element != null && !element.isCompatibleWith(rows)) {
        throw new IllegalArgumentException("embedding shards have rows of different shapes: " + element + " and " + rows);
      }
      element = element == null ? rows : element.mergeWith(rows);
    }
    if (element.isFullyDefined()) {
      return tf.constant(element.toIntArray());
    }
    // On params[0]'s device, so that its shape does not cross the wire.
    Ops at = near(tf, params.get(0));
    return at.stridedSlice(at.shape(params.get(0).asOutput()), new int[] {1}, new int[] {0}, new int[] {1},
        StridedSlice.Masks.NONE.withEndMask(1));
  }

  /** Rows of one shard, built where the shard lives: ResourceGather for a variable, else GatherV2. */
  private static Output gather(Ops tf, Operand p, Output ids) {
    Ops at = near(tf, p);
    return p instanceof Variable v ? at.resourceGather(v, ids) : at.gather(p, ids);
  }

  private static Ops near(Ops tf, Operand p) {
    return tf.withColocation(p instanceof Variable v ? v.handle().op() : p.asOutput().op());
  }

  /**
   * {@code clip_by_norm} of each embedding (over the axes after the ids' ones) to {@code maxNorm}:
   * rows longer than maxNorm are scaled down, others kept. The two-sided select keeps the gradient
   * finite at a zero row, as TensorFlow's.
   */
  private static Output clip(Ops tf, Output rows, Output ids, Double maxNorm) {
    if (maxNorm == null) {
      return rows;
    }
    Ops c = tf.withSubScope("clip_by_norm");
    int idsRank = ids.shape().rank();
    int rowsRank = rows.shape().rank();
    Output axes;
    if (idsRank >= 0 && rowsRank >= 0) {
      int[] a = new int[rowsRank - idsRank];
      for (int i = 0; i < a.length; i++) {
        a[i] = idsRank + i;
      }
      axes = c.constant(a);
    } else {
      axes = c.range(c.rank(ids), c.rank(rows), c.constant(1));
    }
    Output l2sum = c.reduceSum(c.mul(rows, rows), axes, true);
    Output pred = c.greater(l2sum, c.zerosLike(l2sum));
    Output l2sumSafe = c.select(pred, l2sum, c.onesLike(l2sum));
    Output l2norm = c.select(pred, c.sqrt(l2sumSafe), l2sum);
    Output clipNorm = c.constant(rows.dtype(), maxNorm);
    return c.identity(c.div(c.mul(rows, clipNorm), c.maximum(l2norm, clipNorm)));
  }

  /** {@link #embeddingLookupSparse(Ops, List, SparseTensor, SparseTensor, String, String, Double)} over the shards of {@code params}. */
  public static Output embeddingLookupSparse(Ops tf, PartitionedVariable params, SparseTensor spIds,
      SparseTensor spWeights, String partitionStrategy, String combiner, Double maxNorm) {
    return embeddingLookupSparse(tf, params.shards(), spIds, spWeights, partitionStrategy, combiner, maxNorm);
  }

  /**
   * One combined embedding per row of {@code spIds} (int64 ids, rows in order, the row index in
   * the first column of its indices): each distinct id is looked up once (Unique), then the rows
   * of each example are combined — {@code "sum"}, {@code "mean"} (weighted mean) or
   * {@code "sqrtn"} (weighted sum over √Σ weights²). {@code spWeights}, null for all-ones, holds
   * one weight per id at the same indices. The result has {@code last example with an id + 1}
   * rows, as TensorFlow's (examples without ids at the end are not represented).
   */
  public static Output embeddingLookupSparse(Ops tf, List<? extends Operand> params, SparseTensor spIds,
      SparseTensor spWeights, String partitionStrategy, String combiner, Double maxNorm) {
    if (!List.of("mean", "sqrtn", "sum").contains(combiner)) {
      throw new IllegalArgumentException("combiner must be one of 'mean', 'sqrtn' or 'sum', got " + combiner);
    }
    if (spWeights != null && !spIds.values().shape().isCompatibleWith(spWeights.values().shape())) {
      throw new IllegalArgumentException("sp_ids and sp_weights must have one value per id, got values of shapes "
          + spIds.values().shape() + " and " + spWeights.values().shape());
    }
    Ops s = tf.withSubScope("embedding_lookup_sparse");
    Output segmentIds = s.stridedSlice(spIds.indices(), new int[] {0, 0}, new int[] {0, 1}, new int[] {1, 1},
        StridedSlice.Masks.NONE.withBeginMask(1).withEndMask(1).withShrinkAxisMask(2)); // indices[:, 0]
    if (segmentIds.dtype() != DType.INT32) {
      segmentIds = s.cast(segmentIds, DType.INT32);
    }
    List<Output> unique = s.unique(spIds.values());
    Output ids = unique.get(0);
    Output idx = unique.get(1);
    Output embeddings = embeddingLookup(s, params, ids, partitionStrategy, maxNorm);
    if (spWeights == null) {
      return switch (combiner) {
        case "sum" -> s.sparseSegmentSum(embeddings, idx, segmentIds);
        case "mean" -> s.sparseSegmentMean(embeddings, idx, segmentIds);
        default -> s.sparseSegmentSqrtN(embeddings, idx, segmentIds);
      };
    }
    Output weights = spWeights.values();
    if (weights.dtype() != embeddings.dtype()) {
      weights = s.cast(weights, embeddings.dtype());
    }
    embeddings = s.gather(embeddings, idx);
    // weights [n] reshaped to [n, 1, ...] to broadcast over each row.
    Output ones = s.fill(s.expandDims(s.sub(s.rank(embeddings), s.constant(1)), 0), s.constant(1));
    weights = s.reshape(weights, s.concat(List.of(s.shape(weights), ones), 0));
    embeddings = s.mul(embeddings, weights);
    Output summed = s.segmentSum(embeddings, segmentIds);
    return switch (combiner) {
      case "sum" -> summed;
      case "mean" -> s.div(summed, s.segmentSum(weights, segmentIds));
      default -> s.div(summed, s.sqrt(s.segmentSum(s.pow(weights, s.constant(weights.dtype(), 2)), segmentIds)));
    };
  }
}
