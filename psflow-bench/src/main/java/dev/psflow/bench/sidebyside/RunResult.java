package dev.psflow.bench.sidebyside;

import java.util.Map;

/**
 * One run of one workload by one system: the global steps it trained, its steps/sec (local: after the first 50 steps;
 * distributed: train_steps / the slower worker's {@code Training elapsed time}), each process's
 * costs by role ({@code local}, or {@code ps0}, [{@code ps1},] {@code worker0}, {@code worker1}, in
 * that order), the wire bytes and worker steps the workers reported (psflow only; 0 and 0
 * otherwise), and the whole job's launch-to-exit seconds (first launch to the last worker's exit).
 */
record RunResult(int trainSteps, double stepsPerSec, Map<String, ProcessStats> processes, long wireBytes, long workerSteps,
    double jobSeconds) {
  /** CPU seconds summed over every process. */
  double totalCpuSeconds() {
    return processes.values().stream().mapToDouble(ProcessStats::cpuSeconds).sum();
  }

  /** CPU milliseconds per global step of the process in {@code role} (NaN if unknown or absent). */
  double cpuMsPerStep(String role) {
    ProcessStats p = processes.get(role);
    return p == null ? Double.NaN : 1000 * p.cpuSeconds() / trainSteps;
  }

  /** CPU milliseconds per global step, summed over every process. */
  double totalCpuMsPerStep() {
    return 1000 * totalCpuSeconds() / trainSteps;
  }

  /** Bytes on the wire per worker step, or NaN when the system did not report them. */
  double wireBytesPerStep() {
    return workerSteps > 0 ? wireBytes / (double) workerSteps : Double.NaN;
  }
}
