package dev.psflow.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.cluster.ClusterSpec;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Before a psflow process exits it stops its servers and ends the transport's event-loop threads,
 * which an exiting JVM would otherwise wait for while they block in epoll. In a child JVM (the
 * threads are the process's own, shared by every server of this test JVM): a ps and a worker
 * serve, the worker calls the ps, and after {@link ProcessExit#release()} both servers are stopped
 * and no transport thread is left.
 */
class ProcessExitTest {
  @Test
  void releaseStopsTheServersAndEndsTheTransportThreads() throws Exception {
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Child.class.getName());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child finished").isTrue();
    String output = new String(out, StandardCharsets.UTF_8);

    assertThat(p.exitValue()).as(output).isZero();
    assertThat(output).as(output).contains("ps answered: /job:ps/replica:0/task:0")
        .containsPattern("transport threads while serving: [1-9]")
        .contains("transport threads after release: 0")
        .contains("both servers stopped");
  }

  /** The child process. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      ClusterSpec cluster = ClusterSpec.fromFlags("127.0.0.1:" + freePort(), "127.0.0.1:" + freePort());
      Server ps = Server.create(cluster, "ps", 0);
      Server worker = Server.create(cluster, "worker", 0);
      String answered = worker.peer("/job:ps/replica:0/task:0").getStatus(10_000).join().task();
      System.out.println("ps answered: " + answered);
      System.out.println("transport threads while serving: " + transportThreads());
      ProcessExit.release();
      // An event loop's termination is reported just before its thread returns: let them return.
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().startsWith("psflow-grpc-")) {
          t.join(10_000);
        }
      }
      System.out.println("transport threads after release: " + transportThreads());
      ps.join(); // returns at once once stopped; a server still up would hang the child past the test's limit
      worker.join();
      System.out.println("both servers stopped");
    }

    private static long transportThreads() {
      return Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.isAlive() && t.getName().startsWith("psflow-grpc-")).count();
    }

    private static int freePort() throws IOException {
      try (ServerSocket s = new ServerSocket(0)) {
        return s.getLocalPort();
      }
    }
  }
}
