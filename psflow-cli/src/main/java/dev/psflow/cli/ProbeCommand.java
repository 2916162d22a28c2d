package dev.psflow.cli;

import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.MasterApi;
import dev.psflow.distributed.grpc.GrpcTransport;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code psflow probe} (hidden): a stand-in for a party that wants a running cluster's model, for
 * the security system test. With some certificate (or none) it tries each ACTION on the cluster's
 * ps task 0 (variable {@code secret}, a float vector) through the master at {@code --target}, or on
 * a task's worker service directly, and prints one line per action: {@code ACTION: OK ...} or
 * {@code ACTION: CODE: message}. Always exits 0 when the flags are right.
 *
 * <pre>
 * init            create and initialize secret = [1, 2, 3]      read            fetch secret
 * write           assign secret = [6, 6, 6]                     reset           the master's Reset (all tasks)
 * reset-worker    Reset on --worker_address's worker service    register-graph  RegisterGraph there
 * save=PATH       a SaveV2 of secret, on the ps, to PATH
 * </pre>
 */
@Command(name = "probe", hidden = true,
    description = "Test program: try to read, write, reset or register graphs on a cluster; print each status.")
public final class ProbeCommand implements Callable<Integer> {
  private static final String PS = "/job:ps/task:0";

  @Option(names = "--target", required = true, description = "grpc://host:port of a master of the cluster.")
  String target;

  @Option(names = "--worker_address", description = "host:port of the task whose worker service reset-worker and "
      + "register-graph call (default: the target's).")
  String workerAddress;

  @Option(names = SecurityFlags.TLS_DIR, description = "Certificates to present and trust.")
  Path tlsDir;

  @Option(names = "--as", defaultValue = "client", description = "Whose certificate of --tls_dir: client or JOB-INDEX.")
  String as;

  @Option(names = SecurityFlags.INSECURE, description = "Plaintext.")
  boolean insecure;

  @Parameters(paramLabel = "ACTION", description = "init, read, write, reset, reset-worker, register-graph, save=PATH.")
  List<String> actions;

  @Override
  public Integer call() {
    if ((tlsDir == null) == !insecure) {
      throw new UserErrors.UsageException("give --tls_dir or --insecure");
    }
    if (!as.matches("client|[a-z][a-z0-9_]*-\\d+")) {
      throw new UserErrors.UsageException("--as=" + as + ": expected client or JOB-INDEX, e.g. worker-0");
    }
    int dash = as.lastIndexOf('-');
    TlsConfig tls = tlsDir == null ? null : dash < 0 ? TlsConfig.forClient(tlsDir)
        : TlsConfig.forTask(tlsDir, as.substring(0, dash), Integer.parseInt(as.substring(dash + 1)));
    String address = target.substring("grpc://".length());
    GrpcTransport wire = (GrpcTransport) new GrpcTransport().withTls(tls);
    try {
      for (String action : actions) {
        String result;
        try {
          result = "OK " + run(action, tls, wire, address);
        } catch (RuntimeException e) {
          Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
          StatusException s = StatusException.from(t);
          result = s.code() + ": " + s.getMessage();
        }
        System.out.println(action + ": " + result);
      }
    } finally {
      wire.close();
    }
    return 0;
  }

  private String run(String action, TlsConfig tls, GrpcTransport wire, String address) {
    String worker = workerAddress != null ? workerAddress : address;
    switch (action.contains("=") ? action.substring(0, action.indexOf('=')) : action) {
      case "reset" -> {
        MasterApi master = wire.connectMaster(address);
        master.reset(List.of(""), List.of());
        return "reset";
      }
      case "reset-worker" -> {
        wire.connectWorker("/job:probed", worker).reset(List.of("")).join();
        return "reset";
      }
      case "register-graph" -> {
        String h = wire.connectWorker("/job:probed", worker).registerGraph(RegisterGraphRequest.newBuilder()
            .setGraphDef(GraphDefs.toProto(new Graph(), 0)).build()).join();
        return "registered " + h;
      }
      default -> {
        return session(action, tls);
      }
    }
  }

  private String session(String action, TlsConfig tls) {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Ops ps = tf.withDevice(PS);
    Variable secret = ps.variable("secret", tf.constant(new float[] {1, 2, 3}));
    try (Session s = Session.open(g, target, SessionOptions.DEFAULTS.withTls(tls))) {
      switch (action.contains("=") ? action.substring(0, action.indexOf('=')) : action) {
        case "init" -> s.runner().addTarget(secret.initializer()).run();
        case "read" -> { }
        case "write" -> s.runner().addTarget(ps.assign(secret, ps.constant(new float[] {6, 6, 6}))).run();
        case "save" -> {
          Output file = tf.placeholder(DType.STRING, Shape.scalar());
          s.runner().feed(file, Tensor.scalar(action.substring(action.indexOf('=') + 1)))
              .addTarget(ps.saveV2(file, List.of("secret"), List.of(secret.value()))).run();
          return "saved";
        }
        default -> throw new UserErrors.UsageException("unknown ACTION " + action);
      }
      return "secret = " + Arrays.toString(s.runner().fetch(secret.value()).run().get(0).floatData());
    }
  }
}
