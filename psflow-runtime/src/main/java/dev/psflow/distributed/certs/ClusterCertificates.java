package dev.psflow.distributed.certs;

import dev.psflow.cluster.ClusterSpec;
import dev.psflow.cluster.TlsConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.ASN1GeneralizedTime;
import org.bouncycastle.asn1.ASN1UTCTime;
import org.bouncycastle.asn1.BERTags;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.Time;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Makes the certificates of a cluster (BouncyCastle's X.509 builder; keys are ECDSA P-256): a CA
 * of its own, one certificate per task of the cluster spec and one for clients, and writes them as
 * a {@code --tls_dir}. Each certificate names its role in the subject ({@code OU=ps}, {@code worker},
 * {@code chief}, {@code client}; {@code CN=worker-1}) — the role is what a server authorizes calls by
 * — and a task's carries SANs for {@code localhost}, {@code 127.0.0.1}, {@code ::1} and its host, so
 * peers can check they reached the task they meant; a client's is for dialling only (no SAN, client
 * authentication only). Stateless.
 *
 * <pre>{@code
 * List<Path> written = ClusterCertificates.write(cluster, Path.of("certs"), Duration.ofDays(365));
 * }</pre>
 */
public final class ClusterCertificates {
  private static final String SIGNATURE = "SHA256withECDSA";
  private static final SecureRandom RANDOM = new SecureRandom();

  private ClusterCertificates() {}

  /**
   * Writes a new CA and the certificates of every task of {@code cluster} and of a client into
   * {@code dir} (created if needed), valid for {@code validity}. Private keys are readable by their
   * owner only. Refuses a directory that holds a CA already (its certificates may be in use).
   * Returns the files written.
   */
  public static List<Path> write(ClusterSpec cluster, Path dir, Duration validity) {
    try {
      Files.createDirectories(dir);
      if (Files.exists(dir.resolve(TlsConfig.CA_CERTIFICATE))) {
        throw new IllegalArgumentException(dir + " already holds a " + TlsConfig.CA_CERTIFICATE
            + " (a cluster's certificates may be in use there); choose another --out directory or remove it");
      }
      Instant now = Instant.now();
      Window window = new Window(time(now.minus(Duration.ofMinutes(5))), time(now.plus(validity)));
      KeyPair caKeys = newKeyPair();
      X500Name caName = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "psflow")
          .addRDN(BCStyle.CN, "psflow cluster CA " + HexFormat.of().toHexDigits(RANDOM.nextInt())).build();
      X509Certificate ca = caCertificate(caName, caKeys, window);
      List<Path> written = new ArrayList<>();
      written.add(writeCertificate(dir.resolve(TlsConfig.CA_CERTIFICATE), ca));
      written.add(writeKey(dir.resolve(TlsConfig.CA_KEY), caKeys.getPrivate()));
      for (String job : cluster.jobs()) {
        for (int i = 0; i < cluster.numTasks(job); i++) {
          String stem = TlsConfig.fileStem(job, i);
          written.addAll(writeLeaf(dir, stem, job, hostOf(cluster.address(job, i)), ca, caKeys, window));
        }
      }
      written.addAll(writeLeaf(dir, TlsConfig.CLIENT, TlsConfig.CLIENT, null, ca, caKeys, window));
      return written;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write certificates to " + dir + ": " + e.getMessage(), e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot make certificates: " + e.getMessage(), e);
    }
  }

  /**
   * Makes a CA certificate in memory and drops it, so that the classes {@link #write} needs are
   * loaded and its key generation and signing have run once: their first run, mostly class loading
   * and interpreted elliptic-curve arithmetic, takes about half a second. local-cluster calls this
   * on a thread of its own as it starts, beside the main thread that parses its flags, so that its
   * certificates, and with them its tasks, are ready sooner. Best effort: a failure only means no
   * warm-up.
   */
  public static void warmUp() {
    try {
      Instant now = Instant.now();
      caCertificate(new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, "warm-up").build(), newKeyPair(),
          new Window(time(now), time(now.plusSeconds(60))));
    } catch (GeneralSecurityException | OperatorCreationException | IOException | RuntimeException e) {
      // warming only: write() reports whatever is wrong
    }
  }

  private record Window(Time notBefore, Time notAfter) {}

  /**
   * {@code t} as RFC 5280 encodes a certificate's date: UTCTime through 2049, GeneralizedTime from
   * 2050, to the second, in UTC. Made from its DER bytes: BouncyCastle's {@code Time(Date)} formats
   * through SimpleDateFormat, whose Calendar and locale data cost local-cluster's launcher ~25 ms of
   * CPU before its first certificate (async-profiler).
   */
  static Time time(Instant t) {
    LocalDateTime d = LocalDateTime.ofEpochSecond(t.getEpochSecond(), 0, ZoneOffset.UTC);
    boolean utcTime = d.getYear() >= 1950 && d.getYear() < 2050;
    StringBuilder s = new StringBuilder(15);
    digits(s, utcTime ? d.getYear() % 100 : d.getYear(), utcTime ? 2 : 4);
    for (int field : new int[] {d.getMonthValue(), d.getDayOfMonth(), d.getHour(), d.getMinute(), d.getSecond()}) {
      digits(s, field, 2);
    }
    byte[] text = s.append('Z').toString().getBytes(StandardCharsets.US_ASCII);
    byte[] der = new byte[2 + text.length];
    der[0] = (byte) (utcTime ? BERTags.UTC_TIME : BERTags.GENERALIZED_TIME);
    der[1] = (byte) text.length;
    System.arraycopy(text, 0, der, 2, text.length);
    return new Time(utcTime ? ASN1UTCTime.getInstance(der) : ASN1GeneralizedTime.getInstance(der));
  }

  private static void digits(StringBuilder s, int value, int width) {
    String v = Integer.toString(value);
    s.append("0".repeat(Math.max(0, width - v.length()))).append(v);
  }

  private static List<Path> writeLeaf(Path dir, String stem, String role, String host, X509Certificate ca,
      KeyPair caKeys, Window window) throws IOException, GeneralSecurityException, OperatorCreationException {
    KeyPair keys = newKeyPair();
    X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "psflow").addRDN(BCStyle.OU, role)
        .addRDN(BCStyle.CN, stem).build();
    X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(X500Name.getInstance(ca.getSubjectX500Principal()
        .getEncoded()), serial(), window.notBefore(), window.notAfter(), subject, keys.getPublic());
    JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
    if (role.equals(TlsConfig.CLIENT)) {
      // A client only dials: its certificate cannot answer for any address, so its holder cannot pose as a task.
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
    } else {
      // Every task is both a server (its port) and a client (its channels to the other tasks).
      b.addExtension(Extension.extendedKeyUsage, false,
          new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      b.addExtension(Extension.subjectAlternativeName, false, alternativeNames(host));
    }
    b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
    b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca));
    X509Certificate cert = sign(b, caKeys.getPrivate());
    return List.of(writeCertificate(dir.resolve(stem + ".crt"), cert), writeKey(dir.resolve(stem + ".key"), keys.getPrivate()));
  }

  private static X509Certificate caCertificate(X500Name name, KeyPair keys, Window window)
      throws GeneralSecurityException, OperatorCreationException, CertIOException {
    X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(), window.notBefore(), window.notAfter(),
        name, keys.getPublic());
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0)); // signs leaves only
    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    b.addExtension(Extension.subjectKeyIdentifier, false, new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
    return sign(b, keys.getPrivate());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey by)
      throws GeneralSecurityException, OperatorCreationException {
    return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder(SIGNATURE).build(by)));
  }

  /** localhost, its loopback addresses, and {@code host} (a name or an IP literal) when given. */
  private static GeneralNames alternativeNames(String host) {
    Set<GeneralName> names = new LinkedHashSet<>();
    names.add(new GeneralName(GeneralName.dNSName, "localhost"));
    names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    names.add(new GeneralName(GeneralName.iPAddress, "::1"));
    if (host != null && !host.equals("localhost")) {
      names.add(new GeneralName(isIpLiteral(host) ? GeneralName.iPAddress : GeneralName.dNSName, host));
    }
    return new GeneralNames(names.toArray(GeneralName[]::new));
  }

  private static boolean isIpLiteral(String host) {
    if (!host.matches("[0-9.]+|.*:.*")) {
      return false;
    }
    try {
      InetAddress.getByName(host); // a literal: never a DNS lookup
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The host of {@code host:port} ({@code [::1]:2222} gives {@code ::1}). */
  static String hostOf(String address) {
    String host = address.substring(0, address.lastIndexOf(':'));
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static Path writeCertificate(Path file, X509Certificate cert) throws IOException, GeneralSecurityException {
    Files.writeString(file, pem("CERTIFICATE", cert.getEncoded()), StandardCharsets.US_ASCII);
    return file;
  }

  /** PKCS#8 ("BEGIN PRIVATE KEY"), as gRPC's TLS reads it; created readable by the owner only. */
  private static Path writeKey(Path file, PrivateKey key) throws IOException {
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(file); // not a POSIX file system
    } catch (FileAlreadyExistsException e) {
      throw new IllegalArgumentException(file + " exists already; write a cluster's certificates into a new directory");
    }
    Files.writeString(file, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
    return file;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
