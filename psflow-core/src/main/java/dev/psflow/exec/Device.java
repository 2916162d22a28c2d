package dev.psflow.exec;

/**
 * One device of a task (psflow runs on CPUs: {@code /job:worker/replica:0/task:1/device:CPU:0})
 * with the resources that live on it and the most bytes one tensor may take there. Owned by the
 * session or server that created it.
 */
public final class Device {
  private final String name;
  private final ResourceManager resources = new ResourceManager();
  private final TensorSizeLimit tensorSizeLimit;

  /** A device with the default tensor size limit (a quarter of the heap). */
  public Device(String name) {
    this(name, TensorSizeLimit.DEFAULT);
  }

  public Device(String name, TensorSizeLimit tensorSizeLimit) {
    this.name = name;
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

  @Override
  public String toString() {
    return name;
  }
}
