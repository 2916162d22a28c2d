package dev.psflow.exec;

import dev.psflow.cluster.TlsConfig;
import java.util.List;

/**
 * Options of a session (TensorFlow's ConfigProto, the parts psflow uses).
 *
 * @param allowSoftPlacement place an op on the task's CPU when its requested device (a GPU) does not exist
 * @param logDevicePlacement log where each op was placed
 * @param deviceFilters the only devices the session may use, e.g. {@code ["/job:ps", "/job:worker/task:1"]}; empty: all
 * @param operationTimeoutMillis the deadline of each step (0: none)
 * @param tls the certificates a {@code grpc://} session presents and trusts (usually
 *     {@link TlsConfig#forClient}); null: plaintext. Never sent to the master.
 */
public record SessionOptions(boolean allowSoftPlacement, boolean logDevicePlacement, List<String> deviceFilters,
    long operationTimeoutMillis, TlsConfig tls) {
  public static final SessionOptions DEFAULTS = new SessionOptions(false, false, List.of(), 0, null);

  public SessionOptions {
    deviceFilters = List.copyOf(deviceFilters);
  }

  public SessionOptions(boolean allowSoftPlacement, boolean logDevicePlacement, List<String> deviceFilters,
      long operationTimeoutMillis) {
    this(allowSoftPlacement, logDevicePlacement, deviceFilters, operationTimeoutMillis, null);
  }

  public SessionOptions withAllowSoftPlacement(boolean v) {
    return new SessionOptions(v, logDevicePlacement, deviceFilters, operationTimeoutMillis, tls);
  }

  public SessionOptions withDeviceFilters(List<String> filters) {
    return new SessionOptions(allowSoftPlacement, logDevicePlacement, filters, operationTimeoutMillis, tls);
  }

  public SessionOptions withOperationTimeoutMillis(long millis) {
    return new SessionOptions(allowSoftPlacement, logDevicePlacement, deviceFilters, millis, tls);
  }

  public SessionOptions withLogDevicePlacement(boolean v) {
    return new SessionOptions(allowSoftPlacement, v, deviceFilters, operationTimeoutMillis, tls);
  }

  /** Mutual TLS with these certificates for a {@code grpc://} target (null: plaintext). */
  public SessionOptions withTls(TlsConfig t) {
    return new SessionOptions(allowSoftPlacement, logDevicePlacement, deviceFilters, operationTimeoutMillis, t);
  }
}
