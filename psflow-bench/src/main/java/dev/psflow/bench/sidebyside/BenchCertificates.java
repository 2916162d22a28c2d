package dev.psflow.bench.sidebyside;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The certificates psflow's tasks use during a benchmark, made once per run with {@code psflow
 * certs}, as {@code local-cluster} makes its own: psflow is measured as users run it, with mutual
 * TLS. Certificates name localhost and 127.0.0.1 whatever the port, so one set serves every job
 * (up to 2 ps tasks and 2 workers, the largest the benchmark starts).
 */
final class BenchCertificates {
  private BenchCertificates() {}

  /** Makes the certificates under {@code logDir/certs} and returns that directory. */
  static Path make(String java, List<String> jvmFlags, Path jar, Path logDir) throws IOException {
    Path dir = logDir.resolve("certs");
    List<String> c = new ArrayList<>();
    c.add(java);
    c.addAll(jvmFlags);
    c.addAll(List.of("-jar", jar.toString(), "certs", "--ps_hosts=localhost:1,localhost:2",
        "--worker_hosts=localhost:3,localhost:4", "--out=" + dir));
    Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) {
        throw new IOException("psflow certs failed: " + output.strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while making certificates", e);
    }
    return dir;
  }
}
