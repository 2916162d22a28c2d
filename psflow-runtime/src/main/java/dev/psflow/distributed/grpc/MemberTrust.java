package dev.psflow.distributed.grpc;

import dev.psflow.cluster.TlsConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The CA's trust manager, with a shortcut for the cluster's own certificates: a peer that presents,
 * alone, a certificate byte for byte equal to one of the {@code --tls_dir}'s own ({@code ps-0.crt},
 * {@code worker-1.crt}, {@code client.crt}: every {@code .crt} there but {@code ca.crt} whose issuer
 * is the CA, by name and key identifier) is accepted without the CA's signature being checked
 * again, while it is within its dates, for the purpose it is used for (when it names its purposes),
 * with a strong enough key, and, when it answers for a server, while one of its names is exactly
 * the host dialled. Anything else, and anything the shortcut does not accept, goes to the CA's PKIX
 * check unchanged, which accepts or refuses it.
 *
 * <p>Why: the JDK checks its first P-256 signature after building a table of the curve's generator
 * in the interpreter (~70 ms of CPU), and its host check loads the JDK's own root certificates (~20
 * ms): at every task's start, on the handshakes that begin its training (async-profiler). The
 * shortcut trusts nothing new: a {@code --tls_dir}'s files are trusted as they are (whoever can
 * change them can change {@code ca.crt}), a peer still proves in the handshake that it holds the
 * certificate's key (BoringSSL checks that signature, natively), and a chain of more than one
 * certificate never takes the shortcut, so a member's key cannot sign certificates of its own.
 * Immutable, thread-safe.
 */
final class MemberTrust extends X509ExtendedTrustManager {
  /** A member's key must be at least this strong to take the shortcut (what the JDK's default constraints ask of a peer). */
  private static final int MIN_EC_BITS = 256;
  private static final int MIN_RSA_BITS = 2048;
  private static final String SUBJECT_KEY_IDENTIFIER = "2.5.29.14";
  private static final String AUTHORITY_KEY_IDENTIFIER = "2.5.29.35";
  static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

  private final X509ExtendedTrustManager ca;
  private final List<byte[]> members;

  MemberTrust(X509ExtendedTrustManager ca, List<byte[]> members) {
    this.ca = ca;
    this.members = List.copyOf(members);
  }

  /**
   * The encoded certificates of the cluster's members in {@code dir}: every {@code *.crt} but
   * {@code ca.crt} whose one certificate names one of {@code cas} as its issuer (by name and key
   * identifier). Files that are not such a certificate are left out, and a directory that cannot be
   * listed has none: their holders go through the CA's check, as every peer did before.
   */
  static List<byte[]> members(Path dir, Collection<X509Certificate> cas) {
    List<byte[]> found = new ArrayList<>();
    CertificateFactory x509;
    try {
      x509 = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      return found;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.crt")) {
      for (Path f : files) {
        if (f.getFileName().toString().equals(TlsConfig.CA_CERTIFICATE) || !Files.isRegularFile(f)) {
          continue;
        }
        try (InputStream in = Files.newInputStream(f)) {
          Collection<? extends Certificate> certs = x509.generateCertificates(in);
          if (certs.size() == 1 && certs.iterator().next() instanceof X509Certificate c && issuedByOneOf(c, cas)) {
            found.add(c.getEncoded());
          }
        } catch (GeneralSecurityException | IOException notACertificate) {
          // not a member: its holder, if any, goes through the CA's check
        }
      }
    } catch (IOException | DirectoryIteratorException unlisted) {
      return List.of();
    }
    return found;
  }

  /**
   * Whether one of {@code cas} is {@code c}'s issuer by name and by key identifier (the CA's subject
   * key identifier is the one {@code c}'s authority key identifier names), so that a leaf left
   * behind by an earlier CA of the same name is no member.
   */
  private static boolean issuedByOneOf(X509Certificate c, Collection<X509Certificate> cas) {
    byte[] authorityKey = DerOctets.authorityKeyIdentifier(c.getExtensionValue(AUTHORITY_KEY_IDENTIFIER));
    for (X509Certificate ca : cas) {
      byte[] caKey = DerOctets.subjectKeyIdentifier(ca.getExtensionValue(SUBJECT_KEY_IDENTIFIER));
      if (ca.getSubjectX500Principal().equals(c.getIssuerX500Principal()) && authorityKey != null && caKey != null
          && Arrays.equals(authorityKey, caKey)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code chain} is one member certificate alone, strong enough, within its dates at
   * {@code now}, and for {@code purpose} (an extended key usage's OID) when it names its purposes.
   */
  boolean recognises(X509Certificate[] chain, String purpose, Date now) {
    if (chain == null || chain.length != 1 || !strongEnough(chain[0].getPublicKey())) {
      return false;
    }
    byte[] encoded;
    try {
      encoded = chain[0].getEncoded();
      chain[0].checkValidity(now);
      List<String> purposes = chain[0].getExtendedKeyUsage();
      if (purposes != null && !purposes.contains(purpose)) {
        return false;
      }
    } catch (CertificateException expiredOrUnreadable) {
      return false;
    }
    for (byte[] m : members) {
      if (Arrays.equals(m, encoded)) {
        return true;
      }
    }
    return false;
  }

  private static boolean strongEnough(PublicKey key) {
    if (key instanceof ECPublicKey ec) {
      return ec.getParams().getCurve().getField().getFieldSize() >= MIN_EC_BITS;
    }
    return key instanceof RSAPublicKey rsa && rsa.getModulus().bitLength() >= MIN_RSA_BITS;
  }

  /**
   * Whether one of {@code cert}'s subject alternative names (DNS or IP) is exactly {@code host}.
   * Exact only: a case, a wildcard or another spelling of an address is left to the JDK's rules.
   */
  static boolean namesExactly(X509Certificate cert, String host) {
    if (host == null || host.isEmpty()) {
      return false;
    }
    Collection<List<?>> names;
    try {
      names = cert.getSubjectAlternativeNames();
    } catch (CertificateException e) {
      return false;
    }
    if (names == null) {
      return false;
    }
    for (List<?> n : names) {
      Object type = n.get(0);
      if ((Integer.valueOf(2).equals(type) || Integer.valueOf(7).equals(type)) && host.equals(n.get(1))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    if (!recognises(chain, CLIENT_AUTH, new Date())) {
      ca.checkClientTrusted(chain, authType, engine);
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    if (engine == null || !recognises(chain, SERVER_AUTH, new Date()) || !namesExactly(chain[0], engine.getPeerHost())) {
      ca.checkServerTrusted(chain, authType, engine);
    }
  }

  // Without an engine there is no host to check: the CA's check decides, as it always did.
  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    ca.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    ca.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    ca.checkClientTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    ca.checkServerTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return ca.getAcceptedIssuers();
  }
}
