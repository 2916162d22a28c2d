package dev.psflow.distributed.grpc;

import dev.psflow.cluster.TlsConfig;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * gRPC's mutual-TLS credentials from a {@link TlsConfig}: a server presents its task's certificate
 * and requires one signed by the cluster CA from every peer; a channel presents its own and
 * accepts only a server the CA signed whose certificate names the host it dialled. A server logs
 * one line for each peer it refuses for its certificate. Stateless.
 */
final class TlsCredentials {
  private static final Logger LOG = LoggerFactory.getLogger(TlsCredentials.class);

  private TlsCredentials() {}

  /**
   * The server's context: its own certificate, and a peer's required and checked against the CA.
   * Made as gRPC's {@code TlsServerCredentials} would make it, with engines that batch records
   * ({@link RecordBatchingSslContext}).
   */
  static SslContext server(String task, TlsConfig tls) {
    try {
      X509ExtendedTrustManager ca = caTrust(tls);
      Optional<TaskKeyManager> key = TaskKeyManager.read(tls.certificate(), tls.privateKey());
      SslContextBuilder b = key.isPresent() ? SslContextBuilder.forServer(key.get())
          : SslContextBuilder.forServer(tls.certificate().toFile(), tls.privateKey().toFile());
      return new RecordBatchingSslContext(GrpcSslContexts.configure(b)
          .trustManager(new RefusalLogger(task, ca))
          .clientAuth(ClientAuth.REQUIRE)
          .build());
    } catch (IOException | GeneralSecurityException e) {
      throw unreadable(tls, e);
    }
  }

  /** A channel's context: presents the task's certificate, accepts a server the CA signed for the host dialled. */
  static SslContext channel(TlsConfig tls) {
    try {
      Optional<TaskKeyManager> key = TaskKeyManager.read(tls.certificate(), tls.privateKey());
      SslContextBuilder b = SslContextBuilder.forClient().trustManager(caTrust(tls));
      if (key.isPresent()) {
        b.keyManager(key.get());
      } else {
        b.keyManager(tls.certificate().toFile(), tls.privateKey().toFile());
      }
      return new RecordBatchingSslContext(GrpcSslContexts.configure(b).build());
    } catch (IOException | GeneralSecurityException e) {
      throw unreadable(tls, e);
    }
  }

  /**
   * What to tell a caller whose connection failed in the TLS handshake (null when {@code t} is not
   * such a failure): the reason, and what to do about it.
   */
  static String handshakeFailure(Throwable t) {
    Throwable ssl = null;
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof javax.net.ssl.SSLException || c instanceof CertificateException
          || c.getClass().getSimpleName().equals("NotSslRecordException")) {
        ssl = ssl == null ? c : ssl;
        if (c.getClass().getSimpleName().equals("NotSslRecordException")) {
          return "the TLS handshake failed: the server does not speak TLS (was it started with --insecure?); "
              + "give every task and client the same --tls_dir, or all of them --insecure";
        }
      }
    }
    if (ssl == null) {
      return null;
    }
    Throwable root = ssl;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    String reason = String.valueOf(root.getMessage());
    if (reason.contains("unable to find valid certification path")) {
      reason = "the server's certificate was not signed by the CA in our ca.crt";
    } else if (reason.contains("ALERT")) {
      reason = "the server refused our certificate: " + reason.replaceFirst(".*:", "");
    }
    return "the TLS handshake failed (" + reason + "); every task and client of a cluster needs the ca.crt and a "
        + "certificate of one `psflow certs` directory (--tls_dir) whose names include the host dialled";
  }

  private static IllegalArgumentException unreadable(TlsConfig tls, Exception e) {
    return new IllegalArgumentException("cannot use the TLS files " + tls.caCertificate() + ", " + tls.certificate()
        + ", " + tls.privateKey() + ": " + e.getMessage(), e);
  }

  /**
   * The JDK's PKIX trust manager over the one CA certificate of {@code tls}, recognising the
   * certificates of the CA's directory as the cluster's members ({@link MemberTrust}).
   */
  private static X509ExtendedTrustManager caTrust(TlsConfig tls) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    List<X509Certificate> cas = new ArrayList<>();
    try (InputStream in = Files.newInputStream(tls.caCertificate())) {
      for (var c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + cas.size(), c);
        cas.add((X509Certificate) c);
      }
      if (cas.isEmpty()) {
        throw new CertificateException(tls.caCertificate() + " holds no certificate");
      }
    }
    TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    f.init(store);
    for (TrustManager t : f.getTrustManagers()) {
      if (t instanceof X509ExtendedTrustManager x) {
        Path dir = tls.caCertificate().toAbsolutePath().getParent();
        return new MemberTrust(x, MemberTrust.members(dir, cas));
      }
    }
    throw new GeneralSecurityException("no X.509 trust manager");
  }

  /** The CA's trust manager for peers (clients of this server), logging each refusal with the peer's certificate. */
  private static final class RefusalLogger extends X509ExtendedTrustManager {
    private final String task;
    private final X509ExtendedTrustManager ca;

    RefusalLogger(String task, X509ExtendedTrustManager ca) {
      this.task = task;
      this.ca = ca;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
      try {
        ca.checkClientTrusted(chain, authType, engine);
      } catch (CertificateException e) {
        throw refused(chain, e);
      }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
      try {
        ca.checkClientTrusted(chain, authType, socket);
      } catch (CertificateException e) {
        throw refused(chain, e);
      }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      try {
        ca.checkClientTrusted(chain, authType);
      } catch (CertificateException e) {
        throw refused(chain, e);
      }
    }

    /**
     * One line naming the peer by its certificate (gRPC's server-side TLS engines are made without
     * the peer's address, so the handshake cannot name it; the peer's own error names this task).
     */
    private CertificateException refused(X509Certificate[] chain, CertificateException e) {
      String who = chain == null || chain.length == 0 ? "no certificate"
          : "'" + chain[0].getSubjectX500Principal().getName() + "' issued by '" + chain[0].getIssuerX500Principal().getName() + "'";
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      LOG.warn("{} refused a TLS connection from a peer with certificate {}: this cluster's CA did not sign it ({})", task,
          who, root.getMessage());
      return e;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
      ca.checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
      ca.checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      ca.checkServerTrusted(chain, authType);
    }

    /**
     * None named: a server's certificate request then lists no CA, so a peer presents whatever
     * certificate it has and a stranger's is refused here, logged with its subject, rather than
     * withheld by the peer and refused unseen. The check itself is the CA's, unchanged.
     */
    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
