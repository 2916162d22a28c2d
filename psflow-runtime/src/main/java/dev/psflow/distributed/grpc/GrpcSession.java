package dev.psflow.distributed.grpc;

import dev.psflow.distributed.InProcessMasters;
import dev.psflow.distributed.MasterApi;
import dev.psflow.exec.RunRequest;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.Steps;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.StepContext;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A session on a cluster, through the master at {@code grpc://host:port}: the graph is shipped at
 * the first run (CreateSession) and the ops added since at later ones (ExtendSession); each run is
 * one RunStep. When the master is in this process (the worker's own server) it is called directly.
 * Thread-safe; close it to release the session on the master.
 *
 * <pre>{@code
 * try (Session s = Session.open(graph, server.target(), options)) {
 *   s.runner().addTarget(trainOp).feed(x, batch).run();
 * }
 * }</pre>
 */
public final class GrpcSession implements Session {
  private final Graph graph;
  private final SessionOptions options;
  private final String target;
  private final MasterApi master;
  private final GrpcTransport transport;
  private final ReentrantLock lock = new ReentrantLock();
  private String handle;
  private int shippedVersion;

  GrpcSession(Graph graph, String target, SessionOptions options) {
    this(graph, target, options, InProcessMasters.lookup(target));
  }

  private GrpcSession(Graph graph, String target, SessionOptions options, MasterApi local) {
    this.graph = graph;
    this.options = options;
    this.target = target;
    if (local != null) {
      this.master = local;
      this.transport = null;
    } else {
      this.transport = (GrpcTransport) new GrpcTransport().withTls(options.tls());
      this.master = transport.connectMaster(target.substring("grpc://".length()));
    }
  }

  /** A session that reaches its master over the wire even when the master is in this process (tests). */
  static GrpcSession overTheWire(Graph graph, String target, SessionOptions options) {
    return new GrpcSession(graph, target, options, null);
  }

  @Override
  public Graph graph() {
    return graph;
  }

  /** The master's handle of this session (creating it if needed). */
  public String handle() {
    return ensureCurrent();
  }

  @Override
  public List<Tensor> run(RunRequest r) {
    return runWithMetadata(r).outputs();
  }

  @Override
  public Run runWithMetadata(RunRequest r) {
    String h = ensureCurrent();
    List<String> feeds = new ArrayList<>(r.feeds().size());
    for (Output o : r.feeds()) {
      feeds.add(o.name());
    }
    List<String> fetches = new ArrayList<>(r.fetches().size());
    for (Output o : r.fetches()) {
      fetches.add(o.name());
    }
    List<String> targets = new ArrayList<>(r.targets().size());
    for (Operation t : r.targets()) {
      targets.add(t.name());
    }
    long timeout = r.timeoutMillis() > 0 ? r.timeoutMillis() : options.operationTimeoutMillis();
    return Steps.awaitResult(master.runStep(h, feeds, r.feedValues(), fetches, targets, r.options().withTimeoutMillis(timeout)),
        StepContext.local(0), 0);
  }

  private String ensureCurrent() {
    lock.lock();
    try {
      int version = graph.version();
      if (handle == null) {
        handle = master.createSession(GraphDefs.toProto(graph, 0), options);
        shippedVersion = version;
      } else if (version > shippedVersion) {
        master.extendSession(handle, GraphDefs.toProto(graph, shippedVersion), shippedVersion);
        shippedVersion = version;
      }
      return handle;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      if (handle != null) {
        try {
          master.closeSession(handle);
        } catch (StatusException e) {
          // the master may be gone already; nothing left to release
        }
        handle = null;
      }
      if (transport != null) {
        transport.close();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "GrpcSession(" + target + ")";
  }
}
