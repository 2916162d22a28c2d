package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.FreePorts;
import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.MasterApi;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.ServerOptions;
import dev.psflow.distributed.WorkerClient;
import dev.psflow.distributed.certs.ClusterCertificates;
import dev.psflow.exec.Code;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.GraphDefs;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.proto.RegisterGraphRequest;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster whose servers speak only mutual TLS, over real gRPC on loopback: a client with the
 * cluster's client certificate runs steps; it may not reset or register graphs; a worker's SaveV2
 * outside the ps's checkpoint root is refused; and parties without a certificate of the cluster's
 * CA (another CA's, or none at all) get nothing but UNAVAILABLE naming the TLS handshake.
 */
@Timeout(60)
class TlsClusterTest {
  @TempDir Path certs;
  @TempDir Path strangerCerts;
  @TempDir Path root;
  @TempDir Path outside;

  private ClusterSpec cluster;
  private final List<Server> servers = new ArrayList<>();
  private final List<GrpcTransport> transports = new ArrayList<>();

  @BeforeEach
  void startCluster() {
    cluster = FreePorts.localCluster(1, 1);
    ClusterCertificates.write(cluster, certs, Duration.ofDays(1));
    ClusterCertificates.write(cluster, strangerCerts, Duration.ofDays(1));
    servers.add(Server.create(cluster, "ps", 0, options("ps", 0)));
    servers.add(Server.create(cluster, "worker", 0, options("worker", 0)));
  }

  private ServerOptions options(String job, int index) {
    return ServerOptions.DEFAULTS.withTls(TlsConfig.forTask(certs, job, index)).withCheckpointRoot(root);
  }

  @AfterEach
  void stopCluster() {
    servers.forEach(Server::stop);
    transports.forEach(GrpcTransport::close);
  }

  private GrpcTransport transport(TlsConfig tls) {
    GrpcTransport t = (GrpcTransport) new GrpcTransport().withTls(tls);
    transports.add(t);
    return t;
  }

  private String address(String job) {
    return cluster.address(job, 0);
  }

  @Test
  void aClientCertificateRunsStepsThroughAWorkersMaster() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable v = tf.withDevice("/job:ps/task:0").variable("v", tf.constant(new float[] {1, 2}));
    Output x = tf.withDevice("/job:worker/task:0").placeholder(DType.FLOAT32, Shape.of(2));
    Operation add = tf.withDevice("/job:ps/task:0").assignAdd(v, tf.withDevice("/job:worker/task:0").mul(x, x));
    SessionOptions client = SessionOptions.DEFAULTS.withTls(TlsConfig.forClient(certs));
    try (Session s = GrpcSession.overTheWire(g, servers.get(1).target(), client)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      s.runner().feed(x, Tensor.vector(1f, 3f)).addTarget(add).run();
      assertThat(s.runner().fetch(v).run().get(0)).isEqualTo(Tensor.vector(2f, 11f));
    }
  }

  @Test
  void aClientCertificateMayNotResetNorRegisterGraphs() {
    GrpcTransport client = transport(TlsConfig.forClient(certs));
    MasterApi master = client.connectMaster(address("worker"));
    assertThatThrownBy(() -> master.reset(List.of(""), List.of()))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Code.PERMISSION_DENIED))
        .hasMessageContaining("psflow.MasterService/Reset").hasMessageContaining("role 'client'");
    WorkerClient worker = client.connectWorker("/job:ps/replica:0/task:0", address("ps"));
    assertDenied(worker.registerGraph(RegisterGraphRequest.newBuilder().setGraphDef(GraphDefs.toProto(new Graph(), 0))
        .build())::join, "psflow.WorkerService/RegisterGraph", "role 'client'");
    assertDenied(worker.reset(List.of(""))::join, "psflow.WorkerService/Reset", "role 'client'");
  }

  @Test
  void aPsCertificateMayPullTensorsButNotRegisterGraphs() {
    WorkerClient worker = transport(TlsConfig.forTask(certs, "ps", 0)).connectWorker("/job:worker/replica:0/task:0",
        address("worker"));
    assertDenied(worker.registerGraph(RegisterGraphRequest.newBuilder().setGraphDef(GraphDefs.toProto(new Graph(), 0))
        .build())::join, "psflow.WorkerService/RegisterGraph", "role 'ps'");
  }

  private static void assertDenied(Runnable call, String method, String role) {
    assertThatThrownBy(call::run).cause()
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Code.PERMISSION_DENIED))
        .hasMessageContaining(method).hasMessageContaining(role);
  }

  @Test
  void aSaveOutsideThePsCheckpointRootIsRefusedNamingThePathAndTheRoot() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Ops ps = tf.withDevice("/job:ps/task:0");
    Variable v = ps.variable("w", tf.constant(new float[] {1, 2}));
    Output file = tf.placeholder(DType.STRING, Shape.scalar());
    Operation save = ps.saveV2(file, List.of("w"), List.of(v.value()));
    String target = outside.resolve("stolen.safetensors").toString();
    String escape = root.resolve("..").resolve(outside.getFileName()).resolve("up.safetensors").toString();
    SessionOptions client = SessionOptions.DEFAULTS.withTls(TlsConfig.forClient(certs));
    try (Session s = GrpcSession.overTheWire(g, servers.get(1).target(), client)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      for (String path : List.of(target, escape)) {
        assertThatThrownBy(() -> s.runner().feed(file, Tensor.scalar(path)).addTarget(save).run())
            .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Code.PERMISSION_DENIED))
            .hasMessageContaining("SaveV2 may not touch " + path).hasMessageContaining(root.toString());
      }
      s.runner().feed(file, Tensor.scalar(root.resolve("ok.safetensors").toString())).addTarget(save).run();
    }
    assertThat(outside).isEmptyDirectory();
    assertThat(root.resolve("ok.safetensors")).exists();
  }

  @Test
  void aPartyWithAnotherCasCertificateGetsUnavailableNamingTheHandshake() {
    MasterApi master = transport(TlsConfig.forClient(strangerCerts)).connectMaster(address("worker"));
    assertThatThrownBy(master::listDevices)
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Code.UNAVAILABLE))
        .hasMessageContaining(address("worker")).hasMessageContaining("TLS");
  }

  @Test
  void aPlaintextPartyGetsUnavailable() {
    MasterApi master = transport(null).connectMaster(address("worker"));
    assertThatThrownBy(master::listDevices)
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Code.UNAVAILABLE))
        .hasMessageContaining(address("worker"));
  }

  @Test
  void aTlsClientOfAPlaintextServerGetsUnavailableNamingTheHandshake() {
    ClusterSpec plain = FreePorts.localCluster(1, 1);
    Server s = Server.create(plain, "worker", 0);
    servers.add(s);
    MasterApi master = transport(TlsConfig.forClient(certs)).connectMaster(plain.address("worker", 0));
    assertThatThrownBy(master::listDevices)
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Code.UNAVAILABLE))
        .hasMessageContaining("TLS");
  }
}
