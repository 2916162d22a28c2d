package dev.psflow.distributed.grpc;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * gRPC counts every call it starts and ends, on each server, channel and subchannel, with a
 * {@code LongAdder} it reaches through reflection ({@code io.grpc.internal.ReflectionLongAdderCounter},
 * kept from the days of Java 7). Each count is a {@code Method.invoke}, and an invoke of a method not
 * made accessible first asks the JVM for its caller by walking the stack: a native call that the C1
 * compiler cannot remove. That was 1.4% of a ps's CPU and 0.9% of a worker's in an 8000-step async
 * job (async-profiler), two thirds of it the caller check. No builder option reaches these counters,
 * so the one {@code Method} they all share is made accessible once, and a count is then the
 * {@code LongAdder}'s own add behind the reflective call. Where gRPC counts otherwise (another
 * version without that class), nothing changes.
 */
final class CallCounters {
  private CallCounters() {}

  /** Makes gRPC's counting method accessible, if gRPC counts through it; true if it did. */
  static boolean skipCallerChecks() {
    try {
      Class<?> counter = Class.forName("io.grpc.internal.ReflectionLongAdderCounter");
      Field add = counter.getDeclaredField("addMethod");
      add.setAccessible(true);
      if (add.get(null) instanceof Method m) {
        m.setAccessible(true);
        return true;
      }
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      // gRPC counts as it did; only slower
    }
    return false;
  }
}
