package dev.psflow.distributed.grpc;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;

/** The JVM's live heap once garbage is collected, for leak checks in tests. */
final class Heap {
  private Heap() {}

  /**
   * Bytes of live objects: the total of HotSpot's class histogram, which runs a full GC first and
   * counts only reachable objects. Where that diagnostic command is missing, the smallest used-heap
   * reading of a few, each after {@code System.gc()} (which also counts G1's partly filled regions,
   * so it wanders by a few MB on a 12 MB heap).
   */
  static long liveBytesAfterGc() throws InterruptedException {
    try {
      String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
          new Object[] {new String[0]}, new String[] {String[].class.getName()});
      // Last line: "Total <instances> <bytes>".
      String[] total = histogram.strip().lines().reduce((a, b) -> b).orElseThrow().trim().split("\\s+");
      return Long.parseLong(total[total.length - 1]);
    } catch (JMException | RuntimeException e) {
      return usedAfterGc();
    }
  }

  private static long usedAfterGc() throws InterruptedException {
    long min = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(100);
      min = Math.min(min, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return min;
  }
}
