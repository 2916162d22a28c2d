package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.distributed.Server;
import dev.psflow.distributed.ServerOptions;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A server listens on its own address from the cluster spec, or on {@code bindHost} when given
 * (a Kubernetes pod's service name does not resolve while the pod starts; TensorFlow's servers
 * listen on every interface). Peers keep using the cluster spec's address.
 */
class BindHostTest {
  /** A name that never resolves (RFC 6761 reserves .invalid). */
  private static final ClusterSpec CLUSTER = ClusterSpec.of(Map.of("ps", List.of("mnist-ps-0.default.invalid:0")));

  @Test
  void withoutBindHostAnUnresolvableOwnNameCannotBeServed() {
    assertThatThrownBy(() -> Server.create(CLUSTER, "ps", 0))
        .hasMessageStartingWith("cannot start /job:ps/replica:0/task:0 at mnist-ps-0.default.invalid:0");
  }

  @Test
  void withBindHostTheServerListensThereAndKeepsItsNameAsTarget() throws Exception {
    try (Server s = Server.create(CLUSTER, "ps", 0, ServerOptions.DEFAULTS.withBindHost("127.0.0.1"))) {
      assertThat(s.target()).isEqualTo("grpc://mnist-ps-0.default.invalid:" + s.port());
      try (Socket c = new Socket()) {
        c.connect(new InetSocketAddress("127.0.0.1", s.port()), 5_000);
        assertThat(c.isConnected()).isTrue();
      }
    }
  }
}
