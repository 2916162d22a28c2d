package dev.psflow.bench.sidebyside;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the measured programs print, read back: the lines both systems share with TensorFlow's
 * original script, each system's own local steps/sec line, psflow's wire line, and the shell
 * wrapper's {@code /proc/<pid>/stat} line. Pure functions; stateless.
 */
final class LogLines {
  /** psflow mnist: {@code training steps/sec = 717.8} (the first 50 steps excluded). */
  static final Pattern PSFLOW_LOCAL_STEPS_PER_SEC = Pattern.compile("^training steps/sec = ([0-9.]+)");
  /** The reference's local run: {@code RESULT mode=local ... steps_per_sec_after_warmup=755.97 ...} (after 50 steps). */
  static final Pattern TENSORFLOW_LOCAL_STEPS_PER_SEC =
      Pattern.compile("^RESULT mode=local .*\\bsteps_per_sec_after_warmup=([0-9.]+)");
  /**
   * Every worker of both systems, as mnist_replica.py: {@code Training elapsed time: 7.123 s}; through
   * local-cluster after its task's prefix ({@code [worker0] Training elapsed time: ...}).
   */
  static final Pattern TRAINING_ELAPSED = Pattern.compile("^(?:\\[[a-z]+\\d+\\] )?Training elapsed time: ([0-9.]+) s");
  /** A psflow worker: its gRPC message bytes both ways during training, and its local steps. */
  static final Pattern PSFLOW_WIRE = Pattern.compile(
      "wire during training: sent (\\d+) bytes, received (\\d+) bytes in \\d+ messages, (\\d+) local steps");

  /** A worker's bytes on the wire (sent + received) over its local steps. */
  record Wire(long bytes, long localSteps) {}

  private LogLines() {}

  /** The number in group 1 of the last line matching {@code p}, if any. */
  static OptionalDouble lastNumber(List<String> lines, Pattern p) {
    List<Double> all = numbers(lines, p);
    return all.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(all.get(all.size() - 1));
  }

  /** Group 1 of every line matching {@code p}, as numbers, in order. */
  static List<Double> numbers(List<String> lines, Pattern p) {
    List<Double> found = new ArrayList<>();
    for (String line : lines) {
      Matcher m = p.matcher(line);
      if (m.find()) {
        found.add(Double.parseDouble(m.group(1)));
      }
    }
    return found;
  }

  /** A psflow worker's wire line, if it printed one. */
  static Wire wire(List<String> lines) {
    List<Wire> all = wires(lines);
    return all.isEmpty() ? null : all.get(0);
  }

  /** Every wire line, in order: one per worker in a cluster's relayed output. */
  static List<Wire> wires(List<String> lines) {
    List<Wire> found = new ArrayList<>();
    for (String line : lines) {
      Matcher m = PSFLOW_WIRE.matcher(line);
      if (m.find()) {
        found.add(new Wire(Long.parseLong(m.group(1)) + Long.parseLong(m.group(2)), Long.parseLong(m.group(3))));
      }
    }
    return found;
  }

  /**
   * CPU seconds of the reaped children (cutime + cstime, fields 16 and 17) in a {@code /proc/<pid>/stat}
   * line. The fields are counted after the command name's closing parenthesis, since the name
   * itself may hold spaces and parentheses.
   */
  static double childrenCpuSeconds(String statLine, double clockTicksPerSecond) {
    int close = statLine.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + statLine);
    }
    String[] f = statLine.substring(close + 1).trim().split("\\s+");
    // f[0] is field 3 (state): field n is f[n - 3].
    return (Long.parseLong(f[16 - 3]) + Long.parseLong(f[17 - 3])) / clockTicksPerSecond;
  }

  /** {@code VmHWM} (peak resident set) in bytes from a {@code /proc/<pid>/status} text, or -1. */
  static long peakRssBytes(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith("VmHWM:")) {
        String[] f = line.substring(6).trim().split("\\s+");
        return Long.parseLong(f[0]) * 1024; // the kernel writes kB
      }
    }
    return -1;
  }
}
