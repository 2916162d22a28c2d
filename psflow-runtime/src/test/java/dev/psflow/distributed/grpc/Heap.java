package dev.psflow.distributed.grpc;

import java.lang.management.ManagementFactory;

/** The JVM's used heap once garbage is collected, for leak checks in tests. */
final class Heap {
  private Heap() {}

  /** Used heap in bytes: the smallest of a few readings, each after {@code System.gc()}. */
  static long usedAfterGc() throws InterruptedException {
    long min = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(100);
      min = Math.min(min, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return min;
  }
}
