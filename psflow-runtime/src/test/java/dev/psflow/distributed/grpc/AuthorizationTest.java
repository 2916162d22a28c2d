package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.distributed.certs.ClusterCertificates;
import dev.psflow.cluster.ClusterSpec;
import dev.psflow.proto.MasterServiceGrpc;
import dev.psflow.proto.WorkerServiceGrpc;
import io.grpc.MethodDescriptor;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The role table: every method of both services is in it, and each role may call exactly what the Javadoc says. */
class AuthorizationTest {
  private static List<String> allMethods() {
    List<String> out = new ArrayList<>();
    for (var d : List.of(WorkerServiceGrpc.getServiceDescriptor(), MasterServiceGrpc.getServiceDescriptor())) {
      d.getMethods().stream().map(MethodDescriptor::getFullMethodName).forEach(out::add);
    }
    return out;
  }

  @Test
  void everyMethodOfBothServicesHasAnEntrySoANewRpcMustBeClassified() {
    assertThat(Authorization.ALSO_ALLOWED.keySet()).containsExactlyInAnyOrderElementsOf(allMethods());
  }

  @Test
  void workersAndChiefsMayCallEverything() {
    for (String m : allMethods()) {
      assertThat(Authorization.allows(m, "worker")).as(m).isTrue();
      assertThat(Authorization.allows(m, "chief")).as(m).isTrue();
    }
  }

  @Test
  void aPsMayOnlyPullTensors() {
    assertThat(allMethods().stream().filter(m -> Authorization.allows(m, "ps")))
        .containsExactlyInAnyOrder("psflow.WorkerService/RecvTensor", "psflow.WorkerService/RecvTensors");
  }

  @Test
  void aClientMayOnlyRunStepsThroughAMasterAndAskATaskItsStatus() {
    assertThat(allMethods().stream().filter(m -> Authorization.allows(m, "client"))).containsExactlyInAnyOrder(
        "psflow.WorkerService/GetStatus", "psflow.MasterService/CreateSession", "psflow.MasterService/ExtendSession", "psflow.MasterService/RunStep",
        "psflow.MasterService/CloseSession", "psflow.MasterService/ListDevices");
  }

  @Test
  void unknownRolesAndPeersWithoutACertificateMayCallNothing() {
    for (String m : allMethods()) {
      assertThat(Authorization.allows(m, "evaluator")).as(m).isFalse();
      assertThat(Authorization.allows(m, null)).as(m).isFalse();
    }
    assertThat(Authorization.allows("psflow.WorkerService/SomethingNew", "ps")).isFalse();
  }

  @Test
  void theRoleIsTheOuOfTheCertificatesThatPsflowCertsMakes(@TempDir Path dir) throws Exception {
    ClusterCertificates.write(ClusterSpec.fromFlags("ps.example:2222", "localhost:2223"), dir, Duration.ofDays(1));
    assertThat(Authorization.role(read(dir.resolve("ps-0.crt")))).isEqualTo("ps");
    assertThat(Authorization.role(read(dir.resolve("worker-0.crt")))).isEqualTo("worker");
    assertThat(Authorization.role(read(dir.resolve("client.crt")))).isEqualTo("client");
    assertThat(read(dir.resolve("ps-0.crt")).getSubjectAlternativeNames().stream().map(n -> (Object) n.get(1)).toList())
        .contains((Object) "localhost", "127.0.0.1", "ps.example");
    assertThat(read(dir.resolve("client.crt")).getSubjectAlternativeNames()).as("a client answers for no address").isNull();
    assertThat(read(dir.resolve("client.crt")).getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
  }

  private static X509Certificate read(Path p) throws Exception {
    try (InputStream in = Files.newInputStream(p)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }
}
