package dev.psflow.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bin/bench-transport's two sides: a real server on 127.0.0.1 and a client that reports each window. */
class BareStepTest {
  @Test
  void carriesTheModelsVariablesBothWays() {
    assertThat(BareStep.SIZES).containsExactly(313_600, 400, 4_000, 40);
    assertThat(2 * java.util.Arrays.stream(BareStep.SIZES).sum()).as("the ideal bytes of a worker step").isEqualTo(636_080);
  }

  @Test
  void theClientReportsBothSidesCpuPerStepForEachWindow(@TempDir Path dir) throws Exception {
    Path portFile = dir.resolve("port");
    Server server = FloorServer.start(portFile, "--plaintext");
    try {
      List<String> lines = FloorClient.run(Integer.parseInt(Files.readString(portFile)), "--plaintext", 3, 2);
      assertThat(lines).hasSize(2);
      assertThat(lines.get(0)).matches("window 3 client_us=\\d+ server_us=\\d+ total_us=\\d+ wall_us=\\d+");
      assertThat(lines.get(1)).startsWith("window 2 ");
    } finally {
      server.shutdownNow();
    }
  }
}
