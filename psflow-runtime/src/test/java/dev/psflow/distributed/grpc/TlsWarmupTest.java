package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.certs.ClusterCertificates;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start-up warm-up really runs the TLS record path: a handshake with the task's own certificates, then data both ways. */
class TlsWarmupTest {
  @TempDir Path certs;

  @Test
  void aTaskShakesHandsWithItselfAndPassesItsRoundsBothWays() {
    ClusterSpec cluster = ClusterSpec.fromFlags("localhost:2222", "localhost:2223");
    ClusterCertificates.write(cluster, certs, Duration.ofDays(1));
    TlsConfig tls = TlsConfig.forTask(certs, "ps", 0);
    long arrived = TlsWarmup.run(TlsCredentials.server("/job:ps/replica:0/task:0", tls), TlsCredentials.channel(tls));
    assertThat(arrived).isEqualTo(2L * TlsWarmup.ROUNDS * TlsWarmup.MESSAGE_BYTES);
  }

  @Test
  void itRunsWhereCoresAreToSpareOrWhereAskedFor() {
    assertThat(TlsWarmup.wanted(null, "true", 2)).isFalse(); // two cores: the starting tasks need them
    assertThat(TlsWarmup.wanted(null, "true", 4)).isTrue();
    assertThat(TlsWarmup.wanted(null, "false", 16)).isFalse(); // -Dpsflow.warmup=false: no warm-ups
    assertThat(TlsWarmup.wanted("true", "true", 2)).isTrue();
    assertThat(TlsWarmup.wanted("false", "true", 16)).isFalse();
  }
}
