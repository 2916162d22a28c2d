package dev.psflow.exec;

import dev.psflow.graph.Operation;

/**
 * Receives the time each op's kernel took in a traced step (psflow's step stats); an asynchronous
 * kernel (a Recv, a queue dequeue) is timed from its start to its callback, so its time includes
 * the wait. Called from the threads that run the kernels, so implementations must be thread-safe.
 */
@FunctionalInterface
public interface StepTracer {
  void opDone(Operation op, long startNanos, long endNanos);

  /** As {@link #opDone(Operation, long, long)}, with the bytes of the op's outputs. */
  default void opDone(Operation op, long startNanos, long endNanos, long outputBytes) {
    opDone(op, startNanos, endNanos);
  }
}
