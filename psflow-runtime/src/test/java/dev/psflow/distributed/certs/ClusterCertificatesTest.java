package dev.psflow.distributed.certs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.FreePorts;
import dev.psflow.cluster.TlsConfig;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.bouncycastle.asn1.ASN1GeneralizedTime;
import org.bouncycastle.asn1.ASN1UTCTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Certificate dates are encoded as RFC 5280 says, to the second, and read back as written. */
class ClusterCertificatesTest {
  @TempDir Path certs;

  @Test
  void datesThrough2049AreUtcTimeAndLaterOnesGeneralizedTime() throws Exception {
    Instant last = Instant.parse("2049-12-31T23:59:59.900Z");
    Instant next = Instant.parse("2050-01-01T00:00:00Z");

    assertThat(ClusterCertificates.time(last).toASN1Primitive()).isInstanceOf(ASN1UTCTime.class);
    assertThat(((ASN1UTCTime) ClusterCertificates.time(last).toASN1Primitive()).getTime()).isEqualTo("491231235959GMT+00:00");
    assertThat(ClusterCertificates.time(next).toASN1Primitive()).isInstanceOf(ASN1GeneralizedTime.class);
    assertThat(((ASN1GeneralizedTime) ClusterCertificates.time(next).toASN1Primitive()).getTimeString())
        .isEqualTo("20500101000000Z");
    assertThat(ClusterCertificates.time(Instant.parse("2026-03-04T05:06:07Z")).getDate().toInstant())
        .isEqualTo(Instant.parse("2026-03-04T05:06:07Z"));
  }

  @Test
  void certificatesAreValidFromFiveMinutesAgoForTheirValidity() throws Exception {
    Instant before = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    ClusterCertificates.write(FreePorts.localCluster(1, 1), certs, Duration.ofDays(3));
    Instant after = Instant.now();

    for (String file : new String[] {TlsConfig.CA_CERTIFICATE, "ps-0.crt", "worker-0.crt", "client.crt"}) {
      X509Certificate c;
      try (InputStream in = Files.newInputStream(certs.resolve(file))) {
        c = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      }
      assertThat(c.getNotBefore().toInstant()).as(file)
          .isBetween(before.minus(Duration.ofMinutes(5)), after.minus(Duration.ofMinutes(5)));
      assertThat(c.getNotAfter().toInstant()).as(file).isBetween(before.plus(Duration.ofDays(3)), after.plus(Duration.ofDays(3)));
    }
  }
}
