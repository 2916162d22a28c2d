package dev.psflow.distributed;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;

/**
 * Serves a task's {@link TaskMetrics} at {@code http://host:port/metrics} in Prometheus' text
 * format (Prometheus' own HTTP exporter, on its own threads: a scrape never touches the gRPC
 * transport's). Plain HTTP and read-only: bind it where only the monitoring system reaches.
 * Owned by the {@link Server}, which closes it.
 *
 * <pre>{@code
 * MetricsEndpoint m = MetricsEndpoint.start(metrics, "127.0.0.1", 0);
 * System.out.println("metrics at http://127.0.0.1:" + m.port() + "/metrics");
 * m.close();
 * }</pre>
 */
public final class MetricsEndpoint implements AutoCloseable {
  private final HTTPServer http;

  private MetricsEndpoint(HTTPServer http) {
    this.http = http;
  }

  /** Serves {@code metrics} on {@code host:port} (port 0: a free one); fails naming the address. */
  public static MetricsEndpoint start(TaskMetrics metrics, String host, int port) {
    try {
      return new MetricsEndpoint(HTTPServer.builder().hostname(host).port(port).registry(metrics.registry())
          .buildAndStart());
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot serve metrics at " + host + ":" + port + " (--metrics_port): "
          + e.getMessage(), e);
    }
  }

  public int port() {
    return http.getPort();
  }

  @Override
  public void close() {
    http.close();
  }
}
