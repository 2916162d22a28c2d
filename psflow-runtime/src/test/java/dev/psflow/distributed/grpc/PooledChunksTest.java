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
 * than taken from the system and faulted in afresh each step, from one arena of direct buffers per
 * two cores; a setting given on the command line wins. Each case is a fresh JVM: Netty reads the
 * settings once, when its allocator class loads.
 */
class PooledChunksTest {
  @Test
  void theTransportsBuffersComeIn16MiBChunksFromAnArenaPerTwoCores() throws Exception {
    int[] allocator = allocatorInFreshJvm(List.of());
    assertThat(allocator[0]).isEqualTo(16 << 20);
    assertThat(allocator[1]).isEqualTo(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
  }

  @Test
  void settingsGivenOnTheCommandLineWin() throws Exception {
    int[] allocator = allocatorInFreshJvm(List.of("-D" + GrpcTransport.ALLOCATOR_MAX_ORDER_PROPERTY + "=8",
        "-D" + GrpcTransport.ALLOCATOR_DIRECT_ARENAS_PROPERTY + "=3"));
    assertThat(allocator[0]).isEqualTo(2 << 20);
    assertThat(allocator[1]).isEqualTo(3);
  }

  /** The allocator's chunk size and number of direct arenas. */
  private static int[] allocatorInFreshJvm(List<String> flags) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(flags);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    String[] lines = out.split("\n");
    String[] last = lines[lines.length - 1].strip().split(" ");
    return new int[] {Integer.parseInt(last[0]), Integer.parseInt(last[1])};
  }

  /** Loads the transport, as a task does before its first buffer, then prints the allocator's chunk size and direct arenas. */
  static final class Probe {
    public static void main(String[] args) throws Exception {
      Class.forName(GrpcTransport.class.getName(), true, Probe.class.getClassLoader());
      System.out.println(PooledByteBufAllocator.DEFAULT.metric().chunkSize() + " "
          + PooledByteBufAllocator.DEFAULT.metric().numDirectArenas());
    }
  }
}
