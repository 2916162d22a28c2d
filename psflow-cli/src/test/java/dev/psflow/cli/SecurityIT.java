package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TLS cluster as its operator runs it — {@code psflow certs}, then {@code psflow server} tasks
 * with {@code --tls_dir} — probed by other processes ({@code psflow probe}): one with another CA's
 * certificates (even holding the cluster's public ca.crt) and one in plaintext cannot read, write
 * or reset the model; the cluster's client certificate may run steps but not reset or register
 * graphs; a worker's certificate cannot make the ps save outside its checkpoint root. (A TLS
 * local-cluster that trains MNIST is DistributedTrainingIT's.)
 */
class SecurityIT {
  @TempDir Path dir;

  @Test
  void strangersCannotReadWriteOrResetATlsClusterAndClientsMayOnlyRunSteps() throws Exception {
    List<Integer> ports = FreePorts.pick(2);
    String[] cluster = {"--ps_hosts=localhost:" + ports.get(0), "--worker_hosts=localhost:" + ports.get(1)};
    Path certs = dir.resolve("certs");
    Path other = dir.resolve("other");
    PsflowProcess.Result made = PsflowProcess.run(60, "certs", cluster[0], cluster[1], "--out=" + certs);
    assertThat(made.exitCode()).as(made.output()).isZero();
    assertThat(made.output()).contains("ca.crt", "ps-0.key", "worker-0.crt", "client.key");
    assertThat(PsflowProcess.run(60, "certs", cluster[0], cluster[1], "--out=" + other).exitCode()).isZero();
    // A stranger who holds the cluster's (public) CA certificate but a certificate of its own CA.
    Path mixed = Files.createDirectories(dir.resolve("mixed"));
    Files.copy(certs.resolve("ca.crt"), mixed.resolve("ca.crt"));
    for (String f : List.of("client.crt", "client.key")) {
      Files.copy(other.resolve(f), mixed.resolve(f), StandardCopyOption.COPY_ATTRIBUTES);
    }
    Path root = Files.createDirectories(dir.resolve("root"));
    Path outside = Files.createDirectories(dir.resolve("outside"));

    List<PsflowProcess.Running> servers = new ArrayList<>();
    try {
      for (String job : List.of("ps", "worker")) {
        servers.add(PsflowProcess.start("server", cluster[0], cluster[1], "--job_name=" + job, "--task_index=0",
            "--tls_dir=" + certs, "--checkpoint_root=" + root));
      }
      for (PsflowProcess.Running s : servers) {
        awaitLine(s, "Started server");
      }
      String target = "--target=grpc://localhost:" + ports.get(1);
      String psAddress = "--worker_address=localhost:" + ports.get(0);

      Path stolen = outside.resolve("stolen.safetensors");
      String escape = root.resolve("..").resolve("outside").resolve("up.safetensors").toString();
      String worker = probe(target, "--tls_dir=" + certs, "--as=worker-0", "init", "save=" + stolen, "save=" + escape,
          "save=" + root.resolve("kept.safetensors"));
      assertThat(worker)
          .contains("init: OK secret = [1.0, 2.0, 3.0]")
          .contains("save=" + stolen + ": PERMISSION_DENIED: SaveV2 may not touch " + stolen
              + ": it is outside this task's checkpoint root " + root.toRealPath())
          .contains("save=" + escape + ": PERMISSION_DENIED: SaveV2 may not touch " + escape)
          .contains("save=" + root.resolve("kept.safetensors") + ": OK saved");
      assertThat(outside).isEmptyDirectory();

      String stranger = probe(target, psAddress, "--tls_dir=" + other, "read", "write", "reset", "reset-worker",
          "register-graph");
      for (String action : List.of("read", "write", "reset")) {
        assertThat(stranger).containsPattern(action + ": UNAVAILABLE: the master at localhost:" + ports.get(1)
            + " is unreachable: the TLS handshake failed \\(the server's certificate was not signed by the CA in our ca.crt\\)");
      }
      for (String action : List.of("reset-worker", "register-graph")) { // the ps's worker service, directly
        assertThat(stranger).containsPattern(action + ": UNAVAILABLE: .* at localhost:" + ports.get(0)
            + " is unreachable: the TLS handshake failed \\(the server's certificate was not signed by the CA in our ca.crt\\)");
      }
      String withOurCa = probe(target, "--tls_dir=" + mixed, "read", "reset");
      assertThat(withOurCa).contains("read: UNAVAILABLE: the master at localhost:" + ports.get(1)
          + " is unreachable: the TLS handshake failed (the server refused our certificate");
      String plaintext = probe(target, psAddress, "--insecure", "read", "write", "reset", "reset-worker");
      for (String action : List.of("read", "write", "reset")) {
        assertThat(plaintext).contains(action + ": UNAVAILABLE: the master at localhost:" + ports.get(1));
      }
      assertThat(plaintext).containsPattern("reset-worker: UNAVAILABLE: .* at localhost:" + ports.get(0));

      String client = probe(target, psAddress, "--tls_dir=" + certs, "read", "reset", "reset-worker", "register-graph",
          "write");
      assertThat(client)
          .contains("read: OK secret = [1.0, 2.0, 3.0]") // what the strangers tried did not happen
          .contains("reset: PERMISSION_DENIED: /job:worker/replica:0/task:0 refuses psflow.MasterService/Reset from "
              + "'CN=client,OU=client,O=psflow'")
          .contains("reset-worker: PERMISSION_DENIED: /job:ps/replica:0/task:0 refuses psflow.WorkerService/Reset")
          .contains("register-graph: PERMISSION_DENIED: /job:ps/replica:0/task:0 refuses "
              + "psflow.WorkerService/RegisterGraph from 'CN=client,OU=client,O=psflow'")
          .contains("its role 'client' may not call it")
          .contains("write: OK secret = [6.0, 6.0, 6.0]"); // running steps is what a client may do

      String workerLog = servers.get(1).output();
      assertThat(workerLog).contains("/job:worker/replica:0/task:0 refused a TLS connection from a peer with "
          + "certificate 'CN=client,OU=client,O=psflow' issued by 'CN=psflow cluster CA");
      for (PsflowProcess.Running s : servers) {
        assertThat(s.process().isAlive()).as("%s is still serving:%n%s", s.args(), s.output()).isTrue();
      }
    } finally {
      for (PsflowProcess.Running s : servers) {
        s.close();
      }
    }
  }

  @Test
  void aTaskStartedByHandNeedsTlsDirOrInsecure() throws Exception {
    PsflowProcess.Result r = PsflowProcess.run(60, "server", "--ps_hosts=localhost:1", "--worker_hosts=localhost:2",
        "--job_name=ps", "--task_index=0");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.output()).contains("psflow server: psflow tasks speak mutual TLS: give --tls_dir=DIR")
        .contains("or --insecure").doesNotContain("\tat ");
  }

  private static String probe(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("probe"));
    all.addAll(List.of(args));
    PsflowProcess.Result r = PsflowProcess.run(120, all.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.output()).isZero();
    return r.output();
  }

  private static void awaitLine(PsflowProcess.Running p, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!p.output().contains(text)) {
      if (System.nanoTime() > deadline || !p.process().isAlive()) {
        throw new AssertionError("no line with '" + text + "' from psflow " + p.args() + ":\n" + p.output());
      }
      Thread.sleep(100);
    }
  }
}
