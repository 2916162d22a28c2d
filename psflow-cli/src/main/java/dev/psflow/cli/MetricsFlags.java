package dev.psflow.cli;

import dev.psflow.distributed.ServerOptions;
import picocli.CommandLine.Option;

/**
 * {@code --metrics_port}, mixed into every program that starts a task's server: where the task
 * serves Prometheus' {@code /metrics} (off unless given; 0 picks a free port, which the program prints).
 */
final class MetricsFlags {
  static final String METRICS_PORT = "--metrics_port";

  @Option(names = METRICS_PORT, paramLabel = "PORT", description = "Serve Prometheus metrics at "
      + "http://HOST:PORT/metrics, HOST being the task's own host (0: a free port, printed at the start). "
      + "Plain HTTP, read-only. Default: off.")
  Integer metricsPort;

  /** {@code base} with the metrics port asked for (as is when none was). */
  ServerOptions apply(ServerOptions base) {
    if (metricsPort == null) {
      return base;
    }
    if (metricsPort < 0 || metricsPort > 65535) {
      throw new UserErrors.UsageException(METRICS_PORT + " must be a port from 0 (any free one) to 65535, got "
          + metricsPort);
    }
    return base.withMetricsPort(metricsPort);
  }
}
