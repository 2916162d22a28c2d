package dev.psflow.distributed;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.exec.FileAccessPolicy;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task of a cluster (TensorFlow's {@code tf.train.Server}): binds the task's {@code host:port}
 * from the cluster spec and serves its master and worker services. A ps process only joins; a
 * worker process also opens sessions on {@link #target()}. Create, then {@link #join()} or
 * {@link #stop()}; thread-safe. With {@link ServerOptions#tls()} every connection, in and out, is
 * mutual TLS and each call is authorized by the caller's role; its SaveV2/RestoreV2 stay under
 * {@link ServerOptions#checkpointRoot()}.
 *
 * <pre>{@code
 * ClusterSpec cluster = ClusterSpec.fromFlags("localhost:2222", "localhost:2223,localhost:2224");
 * Server ps = Server.create(cluster, "ps", 0);
 * ps.join();
 * }</pre>
 */
public final class Server implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Server.class);

  private final String task;
  private final ClusterSpec cluster;
  private final Transport transport;
  private final WorkerCache workers;
  private final Worker worker;
  private final Master master;
  private final Transport.Binding binding;
  private final String target;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final MetricsEndpoint metricsEndpoint; // null: metrics off
  private final String metricsUrl;

  private Server(ClusterSpec cluster, String job, int index, ServerOptions options) {
    String address = cluster.address(job, index);
    this.task = ClusterSpec.taskName(job, index);
    Transport wire = options.transport() != null ? options.transport() : Transport.load();
    // the worker reaches peers through the cache, which needs the transport, which needs the metrics of this worker
    Worker w = new Worker(task, this::peer, FileAccessPolicy.under(options.effectiveCheckpointRoot()), options.limits());
    TaskMetrics metrics = options.metricsPort() < 0 ? null : new TaskMetrics(job, w.device().resources(),
        new TaskMetrics.TaskFigures() {
          @Override
          public int liveSteps() {
            return w.liveSteps();
          }

          @Override
          public long globalStep() {
            return w.device().globalStep();
          }
        });
    w.setMetrics(metrics);
    this.transport = wire.withTls(options.tls()).withMetrics(metrics);
    this.workers = new WorkerCache(cluster, task, transport);
    this.worker = w;
    workers.setLocalWorker(worker);
    this.master = new Master(task, workers, options.peerWaitMillis(), options.limits().tensorSize());
    String host = address.substring(0, address.lastIndexOf(':'));
    try {
      this.binding = transport.serve(task, listenAddress(address, options.bindHost()), master, worker);
    } catch (RuntimeException e) {
      master.close();
      worker.close();
      throw e;
    }
    try {
      // on the interface the task's server listens on: a pod's own name may not resolve yet
      String metricsHost = options.bindHost() == null || options.bindHost().isBlank() ? unbracket(host) : options.bindHost();
      this.metricsEndpoint = metrics == null ? null : MetricsEndpoint.start(metrics, metricsHost, options.metricsPort());
    } catch (RuntimeException e) {
      binding.close();
      master.close();
      worker.close();
      throw e;
    }
    this.metricsUrl = metricsEndpoint == null ? null : "http://" + host + ":" + metricsEndpoint.port() + "/metrics";
    if (metricsUrl != null) {
      LOG.info("{} serves its metrics at {}", task, metricsUrl);
    }
    this.cluster = cluster;
    this.target = "grpc://" + host + ":" + binding.port();
    InProcessMasters.register(target, master);
    ProcessExit.serving(this);
  }

  /** Where to listen: the task's own address, or its port on {@code bindHost} when one is given. */
  private static String listenAddress(String address, String bindHost) {
    if (bindHost == null || bindHost.isBlank()) {
      return address;
    }
    String port = address.substring(address.lastIndexOf(':') + 1);
    return (bindHost.contains(":") ? "[" + bindHost + "]" : bindHost) + ":" + port;
  }

  /** The client this server uses for {@code otherTask}'s worker service (owned and closed by the server). */
  public WorkerClient peer(String otherTask) {
    return workers.client(otherTask);
  }

  /** Creates and starts the server of task {@code index} of {@code job}; fails naming the address if it cannot bind. */
  public static Server create(ClusterSpec cluster, String job, int index) {
    return create(cluster, job, index, ServerOptions.DEFAULTS);
  }

  public static Server create(ClusterSpec cluster, String job, int index, ServerOptions options) {
    return new Server(cluster, job, index, options);
  }

  /** Where sessions reach this server's master: {@code grpc://host:port}. */
  public String target() {
    return target;
  }

  /** This task's name, {@code /job:ps/replica:0/task:0}. */
  public String task() {
    return task;
  }

  public int port() {
    return binding.port();
  }

  /** Where this task serves its Prometheus metrics, {@code http://host:port/metrics}, or null when they are off. */
  public String metricsUrl() {
    return metricsUrl;
  }

  /** The port of this task's {@code /metrics}, or -1 when metrics are off. */
  public int metricsPort() {
    return metricsEndpoint == null ? -1 : metricsEndpoint.port();
  }

  private static String unbracket(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  public ClusterSpec cluster() {
    return cluster;
  }

  public Worker worker() {
    return worker;
  }

  public Master master() {
    return master;
  }

  /** Blocks until {@link #stop()} is called (from another thread or a shutdown hook). */
  public void join() throws InterruptedException {
    stopped.await();
  }

  /** Stops serving and closes the connections to other tasks. Idempotent; callers racing each other stop it once. */
  public synchronized void stop() {
    if (stopped.getCount() == 0) {
      return;
    }
    InProcessMasters.unregister(target, master);
    binding.close();
    if (metricsEndpoint != null) {
      metricsEndpoint.close();
    }
    master.close();
    worker.close();
    transport.close();
    ProcessExit.stopped(this);
    stopped.countDown();
  }

  @Override
  public void close() {
    stop();
  }
}
