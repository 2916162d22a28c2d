package dev.psflow.exec;

import dev.psflow.graph.Operation;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;

/**
 * What a kernel sees of one execution of its node: the input tensors, where to put its outputs,
 * the device (and so its resources) and the step. Created by the executor for each node run;
 * not shared between threads except by asynchronous kernels, which finish on their callback.
 */
public interface KernelContext {
  Operation op();

  Tensor input(int i);

  int numInputs();

  void setOutput(int i, Tensor value);

  Device device();

  StepContext step();

  /** Records a failure of an asynchronous kernel; call {@code done} afterwards. */
  void fail(StatusException error);

  /**
   * Fails with RESOURCE_EXHAUSTED when output {@code i} of {@code dtype} and {@code shape} would be
   * larger than the device allows. Kernels whose output size depends on input values, or grows
   * faster than their inputs, call it before allocating.
   */
  default void checkOutputSize(int i, DType dtype, Shape shape) {
    device().tensorSizeLimit().checkOutput(i, dtype, shape);
  }

  default ResourceManager resources() {
    return device().resources();
  }
}
