package dev.psflow.distributed;

import dev.psflow.cluster.TlsConfig;
import java.util.ServiceLoader;

/**
 * The wire, seen from the transport-free runtime: serve a task's master and worker at an address,
 * and connect to other tasks' workers and masters. The gRPC implementation is found with
 * {@link ServiceLoader}; tests can pass their own.
 */
public interface Transport {
  /** Serves {@code master} and {@code worker} at {@code host:port} (port 0: any free port). */
  Binding serve(String task, String address, Master master, Worker worker);

  /** A client for the worker of {@code task} at {@code address}; closed by {@link #close}. */
  WorkerClient connectWorker(String task, String address);

  /** A client for the master at {@code address} ("host:port"). */
  MasterApi connectMaster(String address);

  /**
   * This transport with mutual TLS from {@code tls} on what it serves and connects to (null: as
   * is, plaintext). A transport that cannot do TLS refuses.
   */
  default Transport withTls(TlsConfig tls) {
    if (tls != null) {
      throw new IllegalArgumentException(getClass().getSimpleName() + " cannot do TLS");
    }
    return this;
  }

  /**
   * This transport recording its RPCs, served and made, in {@code metrics} (null: as is). A
   * transport that cannot keeps its calls out of the metrics.
   */
  default Transport withMetrics(TaskMetrics metrics) {
    return this;
  }

  /** Closes every client this transport made. */
  void close();

  /** A serving address; closing it stops serving. */
  interface Binding {
    int port();

    void close();
  }

  static Transport load() {
    for (Transport t : ServiceLoader.load(Transport.class)) {
      return t;
    }
    throw new IllegalStateException("no psflow transport on the class path (psflow-runtime's gRPC transport is missing)");
  }
}
