package dev.psflow.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A process that asks for it runs every thread under Linux's SCHED_BATCH policy: those it had and
 * those it starts afterwards. A fresh JVM each time: the policy stays with the process's threads.
 */
class BatchSchedulingTest {
  private static final int SCHED_OTHER = 0;
  private static final int SCHED_BATCH = 3;

  @Test
  void everyThreadOfTheProcessAndThoseStartedLaterRunUnderSchedBatch() throws Exception {
    assumeThat(NativeKernels.available()).as("psflow-core built with gcc on Linux x86-64").isTrue();
    String[] policies = probe();
    assertThat(Integer.parseInt(policies[0])).as("threads moved").isGreaterThan(1);
    // before: the policy the JVM was started with (SCHED_OTHER, unless its parent ran under another)
    assertThat(policies[1]).as("the policy of each thread before").isNotBlank();
    assertThat(policies[2]).as("the policy of each thread after, a thread started since among them")
        .contains(" " + SCHED_BATCH).doesNotContain(" " + SCHED_OTHER);
  }

  private static String[] probe() throws IOException, InterruptedException {
    Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Probe.class.getName()))
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    String[] lines = out.split("\n");
    return new String[] {lines[lines.length - 3].strip(), lines[lines.length - 2], lines[lines.length - 1]};
  }

  /** Prints the threads moved, then the policy of every thread before and after (the second time with a thread started since). */
  static final class Probe {
    public static void main(String[] args) throws Exception {
      String before = policies();
      int moved = NativeKernels.scheduleAsBatch();
      Thread later = new Thread(() -> {
        try {
          Thread.sleep(60_000);
        } catch (InterruptedException e) {
          // done
        }
      });
      later.setDaemon(true);
      later.start();
      System.out.println(moved);
      System.out.println(before);
      System.out.println(policies());
    }

    /** The scheduling policy of each thread (field 41 of /proc/self/task/TID/stat), one after a space each. */
    private static String policies() throws IOException {
      StringBuilder b = new StringBuilder();
      try (var tasks = Files.list(Path.of("/proc/self/task"))) {
        for (Path t : tasks.toList()) {
          String stat = Files.readString(t.resolve("stat"));
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          b.append(' ').append(fields[41 - 3]); // fields after the name start at field 3
        }
      }
      return b.toString();
    }
  }
}
