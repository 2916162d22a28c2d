package dev.psflow.exec;

import dev.psflow.graph.Operation;

/**
 * Receives the time each op's kernel took in a traced step (psflow's step stats); an asynchronous
 * kernel (a Recv, a queue dequeue) is timed from its start to its callback, so its time includes
 * the wait. Called from the threads that run the kernels, so implementations must be thread-safe.
 * A step that is not traced has no tracer at all (null), so tracing costs nothing when off.
 */
@FunctionalInterface
public interface StepTracer {
  void opDone(Operation op, long startNanos, long endNanos);

  /** As {@link #opDone(Operation, long, long)}, with the bytes of the op's outputs. */
  default void opDone(Operation op, long startNanos, long endNanos, long outputBytes) {
    opDone(op, startNanos, endNanos);
  }

  /**
   * An RPC of the step ended (the distributed runtime reports RecvTensor calls it made or served);
   * times are {@link System#nanoTime()} readings.
   */
  default void rpcDone(String method, StepStats.Side side, String peer, String detail, long startNanos, long endNanos,
      long bytes) {}
}
