package dev.psflow.distributed;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.exec.FileAccessPolicy;
import java.util.concurrent.CountDownLatch;

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
  private final String task;
  private final ClusterSpec cluster;
  private final Transport transport;
  private final Worker worker;
  private final Master master;
  private final Transport.Binding binding;
  private final String target;
  private final CountDownLatch stopped = new CountDownLatch(1);

  private Server(ClusterSpec cluster, String job, int index, ServerOptions options) {
    String address = cluster.address(job, index);
    this.task = ClusterSpec.taskName(job, index);
    Transport wire = options.transport() != null ? options.transport() : Transport.load();
    this.transport = wire.withTls(options.tls());
    WorkerCache workers = new WorkerCache(cluster, task, transport);
    this.worker = new Worker(task, workers::client, FileAccessPolicy.under(options.effectiveCheckpointRoot()),
        options.limits());
    workers.setLocalWorker(worker);
    this.master = new Master(task, workers, options.peerWaitMillis(), options.limits().tensorSize());
    try {
      this.binding = transport.serve(task, listenAddress(address, options.bindHost()), master, worker);
    } catch (RuntimeException e) {
      master.close();
      worker.close();
      throw e;
    }
    String host = address.substring(0, address.lastIndexOf(':'));
    this.cluster = cluster;
    this.target = "grpc://" + host + ":" + binding.port();
    InProcessMasters.register(target, master);
  }

  /** Where to listen: the task's own address, or its port on {@code bindHost} when one is given. */
  private static String listenAddress(String address, String bindHost) {
    if (bindHost == null || bindHost.isBlank()) {
      return address;
    }
    String port = address.substring(address.lastIndexOf(':') + 1);
    return (bindHost.contains(":") ? "[" + bindHost + "]" : bindHost) + ":" + port;
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

  /** Stops serving and closes the connections to other tasks. Idempotent. */
  public void stop() {
    if (stopped.getCount() == 0) {
      return;
    }
    InProcessMasters.unregister(target, master);
    binding.close();
    master.close();
    worker.close();
    transport.close();
    stopped.countDown();
  }

  @Override
  public void close() {
    stop();
  }
}
