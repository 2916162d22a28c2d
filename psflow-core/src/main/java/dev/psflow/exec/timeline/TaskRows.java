package dev.psflow.exec.timeline;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a task's events go in a Chrome trace: its process id and name. The id is a function of the
 * task name alone ({@code /job:ps/task:0} → 1000, {@code /job:worker/task:1} → 3001), so traces
 * that different processes write of the same cluster agree on it and merge into one row per task.
 */
final class TaskRows {
  private static final Pattern TASK = Pattern.compile("^/job:([^/]+)(?:/replica:\\d+)?/task:(\\d+)");

  private TaskRows() {}

  /** {@code /job:ps/replica:0/task:0/device:CPU:0} → {@code /job:ps/task:0} (the name people read). */
  static String task(String device) {
    Matcher m = TASK.matcher(device);
    return m.find() ? "/job:" + m.group(1) + "/task:" + m.group(2) : device;
  }

  /** The task's process id: its job's rank times 1000 plus its index (ps first, then chief, worker). */
  static int pid(String task) {
    Matcher m = TASK.matcher(task);
    if (!m.find()) {
      return 9000 + Math.floorMod(task.hashCode(), 1000);
    }
    int rank = switch (m.group(1)) {
      case "ps" -> 1;
      case "chief", "master" -> 2;
      case "worker" -> 3;
      case "evaluator" -> 4;
      case "localhost" -> 5;
      default -> 6 + Math.floorMod(m.group(1).hashCode(), 3);
    };
    return rank * 1000 + Math.min(Integer.parseInt(m.group(2)), 999);
  }

  /** A short name for thread rows: {@code /job:worker/task:1} → {@code worker 1}. */
  static String shortName(String task) {
    Matcher m = TASK.matcher(task);
    return m.find() ? String.format(Locale.ROOT, "%s %s", m.group(1), m.group(2)) : task;
  }
}
