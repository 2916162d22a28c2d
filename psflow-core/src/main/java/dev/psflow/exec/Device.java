package dev.psflow.exec;

/**
 * One device of a task (psflow runs on CPUs: {@code /job:worker/replica:0/task:1/device:CPU:0})
 * with the resources that live on it and the policy of its file-system ops. Owned by the session or server that created it.
 */
public final class Device {
  private final String name;
  private final ResourceManager resources = new ResourceManager();
  private final FileAccessPolicy files;

  /** A device whose I/O ops may read and write anywhere (a local session's). */
  public Device(String name) {
    this(name, FileAccessPolicy.UNRESTRICTED);
  }

  /** A device whose I/O ops may touch only what {@code files} allows (a server's: peers send its graphs). */
  public Device(String name, FileAccessPolicy files) {
    this.name = name;
    this.files = files;
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
