package dev.psflow.ops.queue;

import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.IndexedSlices;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.util.List;

/**
 * The queue and accumulator ops of the {@link Ops} facade. Ops that use a queue or accumulator are
 * colocated with the op that made its handle, so they run on the task that holds it.
 *
 * <pre>{@code
 * Output q = tf.fifoQueue(List.of(DType.INT64), List.of(Shape.scalar()), -1, "sync_token_q");
 * Operation put = tf.queueEnqueueMany(q, List.of(tokens));
 * Output token = tf.queueDequeue(q, List.of(DType.INT64)).get(0);
 * }</pre>
 */
public interface QueueOps {
  /** Every op type of this family, for the {@link dev.psflow.ops.OpRegistry}. */
  static List<OpDef> definitions() {
    return List.of(FifoQueueV2.DEF, QueueEnqueue.ONE, QueueEnqueue.MANY, QueueDequeue.ONE, QueueDequeue.MANY,
        QueueState.SIZE, QueueState.CLOSE, ConditionalAccumulatorOp.DENSE, ConditionalAccumulatorOp.SPARSE,
        AccumulatorApply.DENSE, AccumulatorApply.SPARSE, AccumulatorTake.DENSE, AccumulatorTake.SPARSE,
        AccumulatorState.NUM_ACCUMULATED, AccumulatorState.SET_GLOBAL_STEP, AccumulatorState.NUM_DROPPED);
  }

  Scope scope();

  Ops tf();

  /**
   * A FIFO queue of elements with {@code types} components of {@code shapes} (empty: any shape),
   * at most {@code capacity} elements (negative: unbounded), shared on its task by {@code sharedName}
   * (null or empty: by the op's name).
   */
  default Output fifoQueue(List<DType> types, List<Shape> shapes, int capacity, String sharedName) {
    return FifoQueueV2.create(scope(), types, shapes, capacity, sharedName);
  }

  default Operation queueEnqueue(Output queue, List<? extends Operand> components) {
    return QueueEnqueue.ONE.create(near(queue), queue, components);
  }

  /** Enqueues the rows (along dimension 0) of {@code components} as elements. */
  default Operation queueEnqueueMany(Output queue, List<? extends Operand> components) {
    return QueueEnqueue.MANY.create(near(queue), queue, components);
  }

  default List<Output> queueDequeue(Output queue, List<DType> types) {
    return QueueDequeue.createOne(near(queue), queue, types);
  }

  /** {@code n} (int32) elements stacked along a new dimension 0. */
  default List<Output> queueDequeueMany(Output queue, Operand n, List<DType> types) {
    return QueueDequeue.createMany(near(queue), queue, n, types);
  }

  default Output queueSize(Output queue) {
    return QueueState.createSize(near(queue), queue);
  }

  default Operation queueClose(Output queue, boolean cancelPendingEnqueues) {
    return QueueState.createClose(near(queue), queue, cancelPendingEnqueues);
  }

  /** A ConditionalAccumulator averaging {@code dtype} gradients of {@code shape}. */
  default Output conditionalAccumulator(DType dtype, Shape shape, String sharedName) {
    return ConditionalAccumulatorOp.DENSE.create(scope(), dtype, shape, sharedName);
  }

  /** A SparseConditionalAccumulator averaging IndexedSlices gradients of a tensor of {@code shape}. */
  default Output sparseConditionalAccumulator(DType dtype, Shape shape, String sharedName) {
    return ConditionalAccumulatorOp.SPARSE.create(scope(), dtype, shape, sharedName);
  }

  /** Adds {@code gradient}, computed at {@code localStep} (int64), unless it is stale. */
  default Operation accumulatorApplyGradient(Output accumulator, Operand localStep, Operand gradient) {
    return AccumulatorApply.createDense(near(accumulator), accumulator, localStep, gradient);
  }

  /** Adds an IndexedSlices gradient (indices and shape cast to int64 when needed) unless it is stale. */
  default Operation sparseAccumulatorApplyGradient(Output accumulator, Operand localStep, IndexedSlices gradient) {
    Scope s = near(accumulator);
    Ops at = Ops.create(s.helperScope()); // the casts are helpers; the apply takes a pending name
    Operand indices = gradient.indices().dtype() == DType.INT64 ? gradient.indices()
        : at.cast(gradient.indices(), DType.INT64);
    Operand shape = gradient.denseShape().dtype() == DType.INT64 ? gradient.denseShape()
        : at.cast(gradient.denseShape(), DType.INT64);
    return AccumulatorApply.createSparse(s, accumulator, localStep, indices, gradient.values(), shape);
  }

  /** The average of the gradients once {@code numRequired} (int32) have been accumulated. */
  default Output accumulatorTakeGradient(Output accumulator, Operand numRequired, DType dtype) {
    return AccumulatorTake.createDense(near(accumulator), accumulator, numRequired, dtype);
  }

  default IndexedSlices sparseAccumulatorTakeGradient(Output accumulator, Operand numRequired, DType dtype) {
    return AccumulatorTake.createSparse(near(accumulator), accumulator, numRequired, dtype);
  }

  default Output accumulatorNumAccumulated(Output accumulator) {
    return AccumulatorState.createNumAccumulated(near(accumulator), accumulator);
  }

  default Operation accumulatorSetGlobalStep(Output accumulator, Operand newGlobalStep) {
    return AccumulatorState.createSetGlobalStep(near(accumulator), accumulator, newGlobalStep);
  }

  /** The number of stale gradients the accumulator has dropped (int64). */
  default Output accumulatorNumDropped(Output accumulator) {
    return AccumulatorState.createNumDropped(near(accumulator), accumulator);
  }

  private Scope near(Output resource) {
    return scope().withColocation(resource.op());
  }
}
