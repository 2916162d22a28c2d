package dev.psflow.cluster;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files of one party's mutual TLS: the cluster CA's certificate (the only issuer it trusts),
 * and its own certificate chain and private key (PEM; the key in PKCS#8). Plain paths, read when a
 * server or channel is built. A {@code --tls_dir} holds one set per task and one for clients:
 *
 * <pre>
 * ca.crt                         the cluster CA (every party trusts exactly this)
 * ca.key                         the CA's key: signs new certificates; keep it off the cluster's machines
 * ps-0.crt, ps-0.key             task 0 of job ps   (subject OU=ps, CN=ps-0)
 * worker-1.crt, worker-1.key     task 1 of job worker
 * client.crt, client.key         a client that may only run steps (OU=client)
 * </pre>
 *
 * {@code psflow certs --cluster=... --out=DIR} writes such a directory. Immutable.
 *
 * <pre>{@code
 * TlsConfig tls = TlsConfig.forTask(Path.of("certs"), "worker", 1);
 * Server s = Server.create(cluster, "worker", 1, ServerOptions.DEFAULTS.withTls(tls));
 * Session c = Session.open(graph, target, SessionOptions.DEFAULTS.withTls(TlsConfig.forClient(Path.of("certs"))));
 * }</pre>
 *
 * @param caCertificate the cluster CA's certificate
 * @param certificate this party's certificate, signed by the CA
 * @param privateKey this party's private key
 */
public record TlsConfig(Path caCertificate, Path certificate, Path privateKey) {
  public static final String CA_CERTIFICATE = "ca.crt";
  public static final String CA_KEY = "ca.key";
  public static final String CLIENT = "client";

  /** The files of task {@code index} of {@code job} in {@code dir}; throws naming the first one missing. */
  public static TlsConfig forTask(Path dir, String job, int index) {
    return in(dir, fileStem(job, index));
  }

  /** The files of a client (role {@code client}: may only run steps) in {@code dir}. */
  public static TlsConfig forClient(Path dir) {
    return in(dir, CLIENT);
  }

  /** {@code ps-0}, {@code worker-1}: the name of a task's certificate and key files, and its certificate's CN. */
  public static String fileStem(String job, int index) {
    return job + "-" + index;
  }

  private static TlsConfig in(Path dir, String stem) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--tls_dir=" + dir + " is not a directory (psflow certs --out=" + dir
          + " makes one)");
    }
    TlsConfig c = new TlsConfig(dir.resolve(CA_CERTIFICATE), dir.resolve(stem + ".crt"), dir.resolve(stem + ".key"));
    for (Path f : new Path[] {c.caCertificate, c.certificate, c.privateKey}) {
      if (!Files.isReadable(f)) {
        throw new IllegalArgumentException("--tls_dir=" + dir + " has no readable " + f.getFileName()
            + " (psflow certs makes ca.crt, one <job>-<index>.crt/.key per task of the cluster, and client.crt/.key)");
      }
    }
    return c;
  }
}
