package dev.psflow.distributed.grpc;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A task's one key and certificate chain, read from PEM files with the JDK alone, for gRPC's TLS.
 *
 * <p>Why not hand gRPC the files: Netty then parses the key through BouncyCastle when it is on the
 * class path (as it is, for {@code psflow certs}), which verifies BouncyCastle's signed jars and
 * registers its whole provider, and re-wraps key and chain in a password-protected PKCS#12 store
 * (thousands of PBKDF2 rounds); together about half a second of CPU per credential at every task's
 * start, spent while the other tasks of a 2-core machine are already training. An unencrypted
 * PKCS#8 key ({@code BEGIN PRIVATE KEY}, what {@code psflow certs} writes) needs none of that;
 * {@link #read} says empty for anything else, and the caller falls back to gRPC's own reader.
 * Immutable, thread-safe.
 */
final class TaskKeyManager extends X509ExtendedKeyManager {
  private static final String ALIAS = "psflow-task";
  private static final Pattern PKCS8 =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  private final PrivateKey key;
  private final X509Certificate[] chain;

  private TaskKeyManager(PrivateKey key, X509Certificate[] chain) {
    this.key = key;
    this.chain = chain;
  }

  /** The key manager of {@code certificate} and {@code privateKey}, or empty when the key is not a plain PKCS#8 EC or RSA key. */
  static Optional<TaskKeyManager> read(Path certificate, Path privateKey) throws IOException, GeneralSecurityException {
    Matcher m = PKCS8.matcher(Files.readString(privateKey, StandardCharsets.US_ASCII));
    if (!m.find()) {
      return Optional.empty();
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(m.group(1)));
    PrivateKey key = null;
    for (String algorithm : new String[] {"EC", "RSA"}) {
      try {
        key = KeyFactory.getInstance(algorithm).generatePrivate(spec);
        break;
      } catch (GeneralSecurityException wrongAlgorithm) {
        // try the next
      }
    }
    if (key == null) {
      return Optional.empty();
    }
    X509Certificate[] chain;
    try (InputStream in = Files.newInputStream(certificate)) {
      chain = CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
          .map(c -> (X509Certificate) c).toArray(X509Certificate[]::new);
    }
    if (chain.length == 0) {
      throw new GeneralSecurityException(certificate + " holds no certificate");
    }
    return Optional.of(new TaskKeyManager(key, chain));
  }

  /** Our alias for a key type of TLS ({@code EC}, {@code RSA}, or {@code EC_EC}-style key-and-signer pairs) our key has. */
  private String aliasFor(String keyType) {
    String algorithm = key.getAlgorithm();
    return keyType != null && (keyType.equals(algorithm) || keyType.startsWith(algorithm + "_")) ? ALIAS : null;
  }

  private String aliasForAny(String[] keyTypes) {
    if (keyTypes != null) {
      for (String t : keyTypes) {
        if (aliasFor(t) != null) {
          return ALIAS;
        }
      }
    }
    return null;
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return aliasFor(keyType) == null ? null : new String[] {ALIAS};
  }

  @Override
  public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
    return aliasForAny(keyTypes);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
    return aliasForAny(keyTypes);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return getClientAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return aliasFor(keyType);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return aliasFor(keyType);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return ALIAS.equals(alias) ? chain.clone() : null;
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return ALIAS.equals(alias) ? key : null;
  }
}
