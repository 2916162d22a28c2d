package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.cluster.FreePorts;
import dev.psflow.cluster.TlsConfig;
import dev.psflow.distributed.certs.ClusterCertificates;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code --tls_dir}'s own certificates are recognised byte for byte, alone, within their dates,
 * for their purpose and (as a server) for a host they name exactly; everything else goes to the
 * CA's PKIX check, which refuses a stranger.
 */
class MemberTrustTest {
  @TempDir Path certs;
  @TempDir Path strangerCerts;

  private X509Certificate ca;
  private MemberTrust trust;

  @BeforeEach
  void writeTwoClustersCertificates() throws Exception {
    var cluster = FreePorts.localCluster(1, 2);
    ClusterCertificates.write(cluster, certs, Duration.ofDays(1));
    ClusterCertificates.write(cluster, strangerCerts, Duration.ofDays(1));
    ca = read(certs.resolve(TlsConfig.CA_CERTIFICATE));
    trust = new MemberTrust(pkix(ca), MemberTrust.members(certs, List.of(ca)));
  }

  @Test
  void everyTaskAndClientCertificateOfTheDirectoryIsAMemberButTheCaItself() throws Exception {
    List<byte[]> members = MemberTrust.members(certs, List.of(ca));
    byte[] caItself = ca.getEncoded();

    assertThat(members).hasSize(4); // ps-0, worker-0, worker-1, client
    assertThat(members).noneMatch(m -> Arrays.equals(m, caItself));
  }

  @Test
  void aTaskCertificateIsRecognisedAloneWithinItsDatesForBothPurposes() throws Exception {
    X509Certificate[] ps = chain(certs, "ps-0");

    assertThat(trust.recognises(ps, MemberTrust.SERVER_AUTH, new Date())).isTrue();
    assertThat(trust.recognises(ps, MemberTrust.CLIENT_AUTH, new Date())).isTrue();
    assertThat(trust.recognises(new X509Certificate[] {ps[0], ca}, MemberTrust.CLIENT_AUTH, new Date())).isFalse();
    assertThat(trust.recognises(ps, MemberTrust.CLIENT_AUTH, new Date(System.currentTimeMillis() + Duration.ofDays(3).toMillis())))
        .isFalse();
  }

  @Test
  void theClientCertificateIsRecognisedOnlyAsAClient() throws Exception {
    X509Certificate[] client = chain(certs, TlsConfig.CLIENT);

    assertThat(trust.recognises(client, MemberTrust.CLIENT_AUTH, new Date())).isTrue();
    assertThat(trust.recognises(client, MemberTrust.SERVER_AUTH, new Date())).isFalse();
  }

  @Test
  void anotherClustersCertificateIsNoMemberAndTheCaRefusesIt() throws Exception {
    X509Certificate[] stranger = chain(strangerCerts, "worker-0");

    assertThat(trust.recognises(stranger, MemberTrust.CLIENT_AUTH, new Date())).isFalse();
    assertThatThrownBy(() -> trust.checkClientTrusted(stranger, "ECDHE_ECDSA", (SSLEngine) null))
        .isInstanceOf(CertificateException.class)
        .hasStackTraceContaining("unable to find valid certification path");
    assertThatThrownBy(() -> trust.checkServerTrusted(stranger, "ECDHE_ECDSA", (SSLEngine) null))
        .isInstanceOf(CertificateException.class);
  }

  @Test
  void aServerIsRecognisedOnlyForAHostItNamesExactly() throws Exception {
    X509Certificate worker = chain(certs, "worker-1")[0];

    assertThat(MemberTrust.namesExactly(worker, "127.0.0.1")).isTrue();
    assertThat(MemberTrust.namesExactly(worker, "localhost")).isTrue();
    assertThat(MemberTrust.namesExactly(worker, "LOCALHOST")).isFalse(); // left to the JDK's rules
    assertThat(MemberTrust.namesExactly(worker, "elsewhere.example")).isFalse();
    assertThat(MemberTrust.namesExactly(chain(certs, TlsConfig.CLIENT)[0], "127.0.0.1")).isFalse();
  }

  @Test
  void filesThatAreNoCertificateOfTheCaAreNoMembers() throws Exception {
    Files.writeString(certs.resolve("notes.crt"), "not a certificate");
    Files.copy(strangerCerts.resolve("worker-0.crt"), certs.resolve("foreign.crt"));

    assertThat(MemberTrust.members(certs, List.of(ca))).hasSize(4);
    assertThat(MemberTrust.members(certs.resolve("not-there"), List.of(ca))).isEmpty(); // no members, no failure
  }

  @Test
  void aCertificateOfAnEarlierCaOfTheSameNameIsNoMember() throws Exception {
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(256);
    KeyPair earlierCa = ec.generateKeyPair();
    KeyPair leaf = ec.generateKeyPair();
    X500Name caName = X500Name.getInstance(ca.getSubjectX500Principal().getEncoded());
    Date from = new Date();
    var b = new JcaX509v3CertificateBuilder(caName, BigInteger.TEN, from, new Date(from.getTime() + 86_400_000L),
        new X500Name("O=psflow,OU=worker,CN=worker-0"), leaf.getPublic());
    b.addExtension(Extension.authorityKeyIdentifier, false,
        new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(earlierCa.getPublic()));
    X509Certificate left = new JcaX509CertificateConverter()
        .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(earlierCa.getPrivate())));
    Files.writeString(certs.resolve("worker-0-old.crt"), "-----BEGIN CERTIFICATE-----\n"
        + Base64.getMimeEncoder().encodeToString(left.getEncoded()) + "\n-----END CERTIFICATE-----\n");

    assertThat(left.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    assertThat(MemberTrust.members(certs, List.of(ca))).hasSize(4);
  }

  private static X509Certificate[] chain(Path dir, String stem) throws Exception {
    return new X509Certificate[] {read(dir.resolve(stem + ".crt"))};
  }

  private static X509Certificate read(Path file) throws Exception {
    try (InputStream in = Files.newInputStream(file)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static X509ExtendedTrustManager pkix(X509Certificate ca) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("ca", ca);
    TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    f.init(store);
    return (X509ExtendedTrustManager) f.getTrustManagers()[0];
  }
}
