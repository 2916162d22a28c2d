package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import io.grpc.netty.shaded.io.netty.util.concurrent.FastThreadLocalThread;
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
 * two cores, and a transport thread that frees a tensor's buffer gets the same memory back for the
 * next one; a setting given on the command line wins. Each case is a fresh JVM: Netty reads the
 * settings once, when its allocator class loads.
 */
class PooledChunksTest {
  @Test
  void theTransportsBuffersComeIn16MiBChunksFromAnArenaPerTwoCores() throws Exception {
    int[] allocator = allocatorInFreshJvm(List.of());
    assertThat(allocator[0]).isEqualTo(16 << 20);
    assertThat(allocator[1]).isEqualTo(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
    assertThat(allocator[2]).as("a tensor's buffer, freed, is the next one's").isEqualTo(1);
  }

  @Test
  void settingsGivenOnTheCommandLineWin() throws Exception {
    int[] allocator = allocatorInFreshJvm(List.of("-D" + GrpcTransport.ALLOCATOR_MAX_ORDER_PROPERTY + "=8",
        "-D" + GrpcTransport.ALLOCATOR_DIRECT_ARENAS_PROPERTY + "=3",
        "-D" + GrpcTransport.ALLOCATOR_MAX_CACHED_PROPERTY + "=32768"));
    assertThat(allocator[0]).isEqualTo(2 << 20);
    assertThat(allocator[1]).isEqualTo(3);
    assertThat(allocator[2]).as("Netty's own 32 KiB: a tensor's buffer goes back to its arena").isEqualTo(0);
  }

  /** The allocator's chunk size, its number of direct arenas, and 1 if a freed tensor buffer came back. */
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
    return new int[] {Integer.parseInt(last[0]), Integer.parseInt(last[1]), Integer.parseInt(last[2])};
  }

  /**
   * Loads the transport, as a task does before its first buffer, then prints the allocator's chunk
   * size, its direct arenas, and whether a transport thread (Netty's own kind, the only kind with a
   * buffer cache) that frees the buffer of a framed 318 KB tensor gets the same memory for the next,
   * though a buffer of another size was taken in between.
   */
  static final class Probe {
    public static void main(String[] args) throws Exception {
      Class.forName(GrpcTransport.class.getName(), true, Probe.class.getClassLoader());
      PooledByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
      boolean[] reused = new boolean[1];
      Thread t = new FastThreadLocalThread(() -> {
        ByteBuf first = allocator.directBuffer(318_045, 318_045);
        long address = first.memoryAddress();
        first.release();
        // as between two steps: the TLS records and socket reads take buffers of other sizes
        ByteBuf between = allocator.directBuffer(100_000, 100_000);
        ByteBuf next = allocator.directBuffer(318_045, 318_045);
        reused[0] = next.memoryAddress() == address;
        next.release();
        between.release();
      });
      t.start();
      t.join();
      System.out.println(allocator.metric().chunkSize() + " " + allocator.metric().numDirectArenas() + " "
          + (reused[0] ? 1 : 0));
    }
  }
}
