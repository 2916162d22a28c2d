package dev.psflow.exec;

/**
 * One device of a task (psflow runs on CPUs: {@code /job:worker/replica:0/task:1/device:CPU:0})
 * with the resources that live on it, the policy of its file-system ops and the most bytes one
 * tensor may take there. Owned by the session or server that created it.
 */
public final class Device {
  private final String name;
  private final ResourceManager resources = new ResourceManager();
  private final FileAccessPolicy files;
  private final TensorSizeLimit tensorSizeLimit;

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

  @Override
  public String toString() {
    return name;
  }
}
