package dev.psflow.exec;

import java.time.Instant;

/**
 * Wall-clock microseconds since the epoch for {@link System#nanoTime()} readings, so that step
 * statistics of different tasks (different JVMs) on one machine fall on one time line. The base is
 * read once per JVM from {@link Instant#now()}, which has microsecond resolution on Linux, where
 * {@code currentTimeMillis} would put tasks up to a millisecond apart. Across machines the error is
 * the hosts' clock offset (NTP keeps it to about a millisecond). Thread-safe; no allocation.
 *
 * <pre>{@code
 * long start = System.nanoTime();
 * ...
 * long startMicros = WallClock.micros(start);
 * }</pre>
 */
public final class WallClock {
  private static final long BASE_NANOS;
  private static final long BASE_MICROS;

  static {
    Instant now = Instant.now();
    BASE_NANOS = System.nanoTime();
    BASE_MICROS = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
  }

  private WallClock() {}

  /** The wall-clock time, µs since the epoch, of a {@link System#nanoTime()} reading of this JVM. */
  public static long micros(long nanoTime) {
    return BASE_MICROS + (nanoTime - BASE_NANOS) / 1000;
  }

  /** Now, µs since the epoch. */
  public static long nowMicros() {
    return micros(System.nanoTime());
  }
}
