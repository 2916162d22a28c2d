package dev.psflow.graph;

import java.util.Locale;

/**
 * A (possibly partial) device name, as TensorFlow writes them:
 * {@code /job:worker/replica:0/task:1/device:CPU:0}, with the short forms {@code /job:ps/task:0},
 * {@code /cpu:0}, {@code /gpu:0}, {@code /device:GPU:1}. Unset parts are null. Immutable value.
 *
 * <pre>{@code
 * DeviceSpec d = DeviceSpec.parse("/job:ps/task:0");
 * d.mergeFrom(DeviceSpec.parse("/cpu:0")).toString(); // "/job:ps/task:0/device:CPU:0"
 * }</pre>
 */
public record DeviceSpec(String job, Integer replica, Integer task, String deviceType, Integer deviceIndex) {
  public static final DeviceSpec EMPTY = new DeviceSpec(null, null, null, null, null);

  /** Parses a device string; "" gives {@link #EMPTY}. Throws with the offending part when malformed. */
  public static DeviceSpec parse(String s) {
    if (s == null || s.isEmpty()) {
      return EMPTY;
    }
    String job = null;
    Integer replica = null;
    Integer task = null;
    String type = null;
    Integer index = null;
    String[] parts = s.split("/");
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i];
      if (p.isEmpty()) {
        continue;
      }
      String[] kv = p.split(":", -1); // -1: ":" is two empty parts, not none
      String key = kv[0].toLowerCase(Locale.ROOT);
      try {
        if (key.equals("job") && kv.length == 2 && !kv[1].isEmpty()) {
          job = kv[1];
        } else if (key.equals("replica") && kv.length == 2) {
          replica = Integer.parseInt(kv[1]);
        } else if (key.equals("task") && kv.length == 2) {
          task = Integer.parseInt(kv[1]);
        } else if (key.equals("device") && kv.length == 3) {
          type = kv[1].toUpperCase(Locale.ROOT);
          index = kv[2].equals("*") ? null : Integer.parseInt(kv[2]);
        } else if ((key.equals("cpu") || key.equals("gpu")) && kv.length == 2) {
          type = key.toUpperCase(Locale.ROOT);
          index = kv[1].equals("*") ? null : Integer.parseInt(kv[1]);
        } else {
          throw new IllegalArgumentException("unknown part '" + p + "'");
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "malformed device name '" + s + "': '" + p + "' needs a number");
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "malformed device name '" + s + "': " + e.getMessage()
                + " (expected e.g. /job:worker/replica:0/task:1/device:CPU:0, /job:ps/task:0 or /cpu:0)");
      }
    }
    return new DeviceSpec(job, replica, task, type, index);
  }

  /** The parts set in {@code other} override ours (TensorFlow's {@code DeviceSpec.merge_from}). */
  public DeviceSpec mergeFrom(DeviceSpec other) {
    return new DeviceSpec(
        other.job != null ? other.job : job,
        other.replica != null ? other.replica : replica,
        other.task != null ? other.task : task,
        other.deviceType != null ? other.deviceType : deviceType,
        other.deviceIndex != null ? other.deviceIndex : deviceIndex);
  }

  public DeviceSpec withJob(String j) {
    return new DeviceSpec(j, replica, task, deviceType, deviceIndex);
  }

  public DeviceSpec withTask(Integer t) {
    return new DeviceSpec(job, replica, t, deviceType, deviceIndex);
  }

  public DeviceSpec withDevice(String type, Integer index) {
    return new DeviceSpec(job, replica, task, type, index);
  }

  public boolean isEmpty() {
    return equals(EMPTY);
  }

  /** True when every part set here equals the same part of {@code other} (other may be more specific). */
  public boolean matches(DeviceSpec other) {
    return (job == null || job.equals(other.job))
        && (replica == null || replica.equals(other.replica))
        && (task == null || task.equals(other.task))
        && (deviceType == null || deviceType.equals(other.deviceType))
        && (deviceIndex == null || deviceIndex.equals(other.deviceIndex));
  }

  /** The task part alone: {@code /job:ps/replica:0/task:0}. */
  public String taskName() {
    return "/job:" + job + "/replica:" + (replica == null ? 0 : replica) + "/task:" + (task == null ? 0 : task);
  }

  /** The canonical string: only the parts that are set, in TensorFlow's order. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    if (job != null) {
      sb.append("/job:").append(job);
    }
    if (replica != null) {
      sb.append("/replica:").append(replica);
    }
    if (task != null) {
      sb.append("/task:").append(task);
    }
    if (deviceType != null) {
      sb.append("/device:").append(deviceType).append(':').append(deviceIndex == null ? "*" : deviceIndex);
    }
    return sb.toString();
  }
}
