package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * gRPC's pooled Netty buffers come in 16 MiB chunks, so a large tensor's buffers are pooled rather
 * than taken from the system and faulted in afresh each step; a chunk size given on the command line
 * wins. Each case is a fresh JVM: Netty reads the setting once, when its allocator class loads.
 */
class PooledChunksTest {
  @Test
  void theTransportsBuffersComeIn16MiBChunks() throws Exception {
    assertThat(chunkSizeInFreshJvm(List.of())).isEqualTo(16 << 20);
  }

  @Test
  void aChunkSizeGivenOnTheCommandLineWins() throws Exception {
    assertThat(chunkSizeInFreshJvm(List.of("-D" + GrpcTransport.ALLOCATOR_MAX_ORDER_PROPERTY + "=8")))
        .isEqualTo(2 << 20);
  }

  private static int chunkSizeInFreshJvm(List<String> flags) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(flags);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    String[] lines = out.split("\n");
    return Integer.parseInt(lines[lines.length - 1].strip());
  }

  /** Loads the transport, as a task does before its first buffer, then prints the allocator's chunk size. */
  static final class Probe {
    public static void main(String[] args) throws Exception {
      Class.forName(GrpcTransport.class.getName(), true, Probe.class.getClassLoader());
      System.out.println(PooledByteBufAllocator.DEFAULT.metric().chunkSize());
    }
  }
}
