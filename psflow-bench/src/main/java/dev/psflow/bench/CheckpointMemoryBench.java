package dev.psflow.bench;

import dev.psflow.exec.LocalSession;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import dev.psflow.train.Saver;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * How much a checkpoint save and restore of one big variable raise the process's peak memory:
 * resident set ({@code VmHWM}, its peak reset through {@code /proc/self/clear_refs} just before)
 * and bytes allocated on the Java heap by all threads, each against the variable's size N. Three
 * cases: the {@link Saver} (SaveV2 streaming the variable's own storage), the same SaveV2 fed a
 * ReadVariableOp instead (what the saver did before: one whole copy, shown to check the method
 * sees a copy), and the saver's restore. Linux only ({@code /proc}).
 *
 * <p>Run in a JVM of its own whose heap gives memory back after a full GC, so freed pages do not
 * hide a copy: {@code java -Xms32m -Xmx3g -XX:+UseG1GC -XX:MinHeapFreeRatio=5
 * -XX:MaxHeapFreeRatio=10 --add-modules jdk.incubator.vector -cp psflow-bench/target/psflow-bench.jar
 * dev.psflow.bench.CheckpointMemoryBench [megabytes, default 512] [dir]}
 */
public final class CheckpointMemoryBench {
  private CheckpointMemoryBench() {}

  public static void main(String[] args) throws IOException {
    long mb = args.length > 0 ? Long.parseLong(args[0]) : 512;
    Path dir = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("ckpt-memory");
    long n = mb << 20;
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Variable table = tf.variable("table", tf.zeros(Shape.of(n / 4), DType.FLOAT32));
    Saver saver = new Saver(g);
    Output file = tf.placeholder(DType.STRING, Shape.scalar());
    Operation copySave = tf.withColocation(table.handle().op()).saveV2(file, List.of("table"), List.of(table.value()));
    try (LocalSession s = new LocalSession(g, SessionOptions.DEFAULTS)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      System.out.printf(Locale.ROOT, "variable: %d MiB (%d floats); JVM heap max %d MiB%n", mb, n / 4,
          Runtime.getRuntime().maxMemory() >> 20);
      String path = measure("save, streamed (Saver)", n, () -> saver.save(s, dir, 1));
      measure("save, ReadVariableOp copy", n, () -> s.runner()
          .feed(file, Tensor.scalar(dir.resolve("copy.safetensors").toString())).addTarget(copySave).run());
      measure("restore (Saver)", n, () -> saver.restore(s, Path.of(path)));
    }
  }

  private static <T> T measure(String what, long n, java.util.function.Supplier<T> action) {
    long committed = settle();
    long rss = status("VmRSS:");
    resetPeak();
    long allocated = allocatedBytes();
    T r = action.get();
    long heap = allocatedBytes() - allocated;
    long peak = status("VmHWM:");
    System.out.printf(Locale.ROOT, "%-28s peak RSS +%5d MiB (%.2f x N), heap allocated %5d MiB (%.2f x N)"
        + " [RSS before %d MiB, heap committed before %d MiB]%n", what, (peak - rss) >> 20, (double) (peak - rss) / n,
        heap >> 20, (double) heap / n, rss >> 20, committed >> 20);
    return r;
  }

  private static void measure(String what, long n, Runnable action) {
    measure(what, n, () -> {
      action.run();
      return null;
    });
  }

  /**
   * A full GC, then waits (up to 5 s) for the heap's freed memory to leave the resident set (G1
   * uncommits concurrently), so the measured step starts from its live data. Returns the committed heap.
   */
  private static long settle() {
    System.gc();
    long last = status("VmRSS:");
    for (int i = 0; i < 50; i++) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      long now = status("VmRSS:");
      if (Math.abs(now - last) < (1 << 20) && i >= 5) {
        break;
      }
      last = now;
    }
    return Runtime.getRuntime().totalMemory();
  }

  /** Bytes allocated so far by every live thread (the executor's pool threads outlive the run). */
  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
  }

  /** Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+). */
  private static void resetPeak() {
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (IOException e) {
      throw new IllegalStateException("cannot reset the peak RSS through /proc/self/clear_refs: " + e, e);
    }
  }

  /** A {@code /proc/self/status} field in bytes. */
  private static long status(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]) << 10;
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/self/status: " + e, e);
    }
    throw new IllegalStateException(field + " is not in /proc/self/status");
  }
}
