package dev.psflow.distributed.grpc;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may call what on a TLS server: the caller's role is the {@code OU} of the certificate it
 * presented in the handshake (which the cluster CA signed, or there would be no call), and each
 * method allows some roles:
 *
 * <pre>
 * method                                               worker/chief/master   ps   client
 * WorkerService  RegisterGraph DeregisterGraph RunGraph         yes           -     -
 *                AbortStep Reset                                yes           -     -
 *                GetStatus                                      yes           -    yes
 *                RecvTensor RecvTensors                         yes          yes    -
 * MasterService  CreateSession ExtendSession RunStep            yes           -    yes
 *                CloseSession ListDevices                       yes           -    yes
 *                Reset                                          yes           -     -
 * </pre>
 *
 * A worker (or chief) drives steps: its master registers, runs and aborts partitions on every task.
 * A ps only serves and pulls tensors (its Recv of a gradient pulls from the worker that sent it).
 * A client runs steps through a master, which registers the graphs with its own certificate; it
 * cannot register graphs, reset resources or reach a worker service itself beyond GetStatus. Any other call, or
 * role, is refused: PERMISSION_DENIED naming the method, the caller and its role. Stateless,
 * thread-safe; never blocks.
 */
final class Authorization implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(Authorization.class);

  static final Set<String> TRAINER_ROLES = Set.of("worker", "chief", "master");

  /** Method → the roles beyond the trainers' that may call it. Every method of both services is here (tested). */
  static final Map<String, Set<String>> ALSO_ALLOWED = Map.ofEntries(
      // read-only figures (psflow status): no tensor, no graph
      Map.entry("psflow.WorkerService/GetStatus", Set.of("client")),
      Map.entry("psflow.WorkerService/RegisterGraph", Set.of()),
      Map.entry("psflow.WorkerService/DeregisterGraph", Set.of()),
      Map.entry("psflow.WorkerService/RunGraph", Set.of()),
      Map.entry("psflow.WorkerService/RecvTensor", Set.of("ps")),
      Map.entry("psflow.WorkerService/RecvTensors", Set.of("ps")),
      Map.entry("psflow.WorkerService/AbortStep", Set.of()),
      Map.entry("psflow.WorkerService/Reset", Set.of()),
      Map.entry("psflow.MasterService/CreateSession", Set.of("client")),
      Map.entry("psflow.MasterService/ExtendSession", Set.of("client")),
      Map.entry("psflow.MasterService/RunStep", Set.of("client")),
      Map.entry("psflow.MasterService/CloseSession", Set.of("client")),
      Map.entry("psflow.MasterService/ListDevices", Set.of("client")),
      Map.entry("psflow.MasterService/Reset", Set.of()));

  private static final String ROLE_KEY = "psflow.role";

  private final String task;

  Authorization(String task) {
    this.task = task;
  }

  /** Whether a caller of {@code role} may call {@code method} (gRPC's full name, {@code psflow.WorkerService/Reset}). */
  static boolean allows(String method, String role) {
    if (role == null) {
      return false;
    }
    if (TRAINER_ROLES.contains(role)) {
      return true;
    }
    return ALSO_ALLOWED.getOrDefault(method, Set.of()).contains(role);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    SSLSession ssl = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    // A connection's certificate is fixed by its handshake: its role is read once and kept with the session.
    Object known = ssl == null ? null : ssl.getValue(ROLE_KEY);
    if (known instanceof String r && allows(method, r)) {
      return next.startCall(call, headers);
    }
    X509Certificate cert = peerCertificate(ssl);
    String role = cert == null ? null : role(cert);
    if (role != null) {
      ssl.putValue(ROLE_KEY, role);
    }
    if (allows(method, role)) {
      return next.startCall(call, headers);
    }
    String who = cert == null ? "a peer without a certificate" : "'" + cert.getSubjectX500Principal().getName() + "'";
    String message = task + " refuses " + method + " from " + who + " at "
        + call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR) + ": its role '" + role + "' may not call it ("
        + "graphs are registered, run and reset only by a worker's or chief's certificate; a client's may only run "
        + "steps through a master: CreateSession, ExtendSession, RunStep, CloseSession, ListDevices)";
    LOG.warn(message);
    call.close(Status.PERMISSION_DENIED.withDescription(message), new Metadata());
    return new ServerCall.Listener<>() {};
  }

  private static X509Certificate peerCertificate(SSLSession ssl) {
    if (ssl == null) {
      return null;
    }
    try {
      Certificate[] chain = ssl.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  /** The certificate's role: the value of its subject's OU ({@code OU=worker}); null when it has none. */
  static String role(X509Certificate cert) {
    try {
      List<Rdn> rdns = new LdapName(cert.getSubjectX500Principal().getName()).getRdns();
      for (Rdn r : rdns) {
        if (r.getType().equalsIgnoreCase("OU")) {
          return String.valueOf(r.getValue());
        }
      }
      return null;
    } catch (InvalidNameException e) {
      return null;
    }
  }
}
