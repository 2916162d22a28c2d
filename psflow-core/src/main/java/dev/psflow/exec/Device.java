package dev.psflow.exec;

import dev.psflow.tensor.DType;
import dev.psflow.tensor.ResourceHandle;
import dev.psflow.tensor.Tensor;

/**
 * One device of a task (psflow runs on CPUs: {@code /job:worker/replica:0/task:1/device:CPU:0})
 * with the resources that live on it, the policy of its file-system ops and the most bytes one
 * tensor may take there. Owned by the session or server that created it.
 */
public final class Device {
  private static final ResourceHandle GLOBAL_STEP = new ResourceHandle("", "", "global_step");

  private final String name;
  private final ResourceManager resources = new ResourceManager();
  private final FileAccessPolicy files;
  private final TensorSizeLimit tensorSizeLimit;
  private volatile TrainingEvents events = TrainingEvents.NONE;

  /** A device whose I/O ops may read and write anywhere (a local session's), with the default tensor size limit. */
  public Device(String name) {
    this(name, FileAccessPolicy.UNRESTRICTED, TensorSizeLimit.DEFAULT);
  }

  /**
   * A device whose I/O ops may touch only what {@code files} allows (a server's: peers send its
   * graphs) and whose tensors may take at most {@code tensorSizeLimit}.
   */
  public Device(String name, FileAccessPolicy files, TensorSizeLimit tensorSizeLimit) {
    this.name = name;
    this.files = files;
    this.tensorSizeLimit = tensorSizeLimit;
  }

  /** The most bytes one tensor may take here; kernels check it before allocating. */
  public TensorSizeLimit tensorSizeLimit() {
    return tensorSizeLimit;
  }

  /** The full device name. */
  public String name() {
    return name;
  }

  public ResourceManager resources() {
    return resources;
  }

  /** Where this device's file-system ops (SaveV2, RestoreV2) may read and write. */
  public FileAccessPolicy files() {
    return files;
  }

  /** Who is told of this device's gradient applies and checkpoint writes (its task's metrics). */
  public TrainingEvents events() {
    return events;
  }

  public void setEvents(TrainingEvents e) {
    this.events = e == null ? TrainingEvents.NONE : e;
  }

  /**
   * The value of the task's "global_step" variable when this device holds it (the ps that
   * ReplicaDeviceSetter gave it to), else -1. A map look-up: cheap enough once per step and apply.
   */
  public long globalStep() {
    VariableResource v = resources.find(GLOBAL_STEP, VariableResource.class);
    if (v == null || !v.isInitialized()) {
      return -1;
    }
    Tensor t = v.live();
    return t.dtype() == DType.INT64 && t.shape().rank() == 0 ? t.longData()[0] : -1;
  }

  @Override
  public String toString() {
    return name;
  }
}
