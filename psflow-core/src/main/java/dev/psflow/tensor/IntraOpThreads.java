package dev.psflow.tensor;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * The threads one kernel splits its work over: TensorFlow's {@code intra_op_parallelism_threads}.
 * {@code -Dpsflow.intraOpThreads=N} sets how many threads a kernel may use, the calling thread
 * included (default: one per core; 1 runs every kernel on its calling thread alone).
 *
 * <p>A split never waits for a helper to become free: the caller runs the first part, then every
 * part no helper has claimed yet, and waits only for parts a helper is already running. On cores
 * that other work keeps busy a kernel therefore costs what it costs alone, plus one hand-off; on
 * idle cores its parts run side by side. Helpers never wait on anything, so a kernel running on a
 * helper's pool (or any pool) may split again without deadlock.
 *
 * <p>Thread-safety: thread-safe; the helpers are daemon threads shared by the whole process.
 */
public final class IntraOpThreads {
  /** Threads a split may use, the caller included. */
  public static final int THREADS =
      Math.max(1, Integer.getInteger("psflow.intraOpThreads", Runtime.getRuntime().availableProcessors()));

  /** How long a caller spins for a helper's part before parking: a part is tens of microseconds or more. */
  private static final long SPIN_NANOS = 20_000;

  private static final ExecutorService HELPERS = THREADS > 1 ? helpers(THREADS - 1) : null;

  private IntraOpThreads() {}

  private static ExecutorService helpers(int n) {
    AtomicInteger count = new AtomicInteger();
    return Executors.newFixedThreadPool(n, r -> {
      Thread t = new Thread(r, "psflow-intra-op-" + count.getAndIncrement());
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Runs {@code part.accept(i)} for every i in [0, parts), part 0 on the calling thread, the rest
   * on helpers or the caller (whichever comes first), and returns when all have finished. An
   * exception from any part is rethrown here after every part has finished.
   */
  public static void run(int parts, IntConsumer part) {
    if (parts <= 1 || HELPERS == null) {
      for (int i = 0; i < parts; i++) {
        part.accept(i);
      }
      return;
    }
    Split split = new Split(parts, part, Thread.currentThread());
    for (int i = 1; i < parts && i < THREADS; i++) {
      HELPERS.execute(split::helpOnce);
    }
    split.runPart(0);
    split.runUnclaimed();
    split.awaitAll();
  }

  /** One call's parts: which is next to claim, how many are not finished, the first failure. */
  private static final class Split {
    private final int parts;
    private final IntConsumer part;
    private final Thread caller;
    private final AtomicInteger next = new AtomicInteger(1); // part 0 is the caller's
    private final AtomicInteger unfinished;
    private volatile Throwable failure;

    Split(int parts, IntConsumer part, Thread caller) {
      this.parts = parts;
      this.part = part;
      this.caller = caller;
      this.unfinished = new AtomicInteger(parts);
    }

    void helpOnce() {
      int i = next.getAndIncrement();
      if (i < parts) {
        runPart(i);
      }
    }

    void runUnclaimed() {
      for (int i = next.getAndIncrement(); i < parts; i = next.getAndIncrement()) {
        runPart(i);
      }
    }

    void runPart(int i) {
      try {
        part.accept(i);
      } catch (Throwable t) {
        if (failure == null) {
          failure = t;
        }
      } finally {
        if (unfinished.decrementAndGet() == 0 && Thread.currentThread() != caller) {
          LockSupport.unpark(caller);
        }
      }
    }

    /** Waits even when interrupted (the parts write the caller's output), then keeps the interrupt. */
    void awaitAll() {
      long spinUntil = System.nanoTime() + SPIN_NANOS;
      boolean interrupted = false;
      while (unfinished.get() > 0) {
        if (System.nanoTime() < spinUntil) {
          Thread.onSpinWait();
        } else {
          LockSupport.park(this);
          interrupted |= Thread.interrupted();
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      Throwable t = failure;
      if (t instanceof RuntimeException e) {
        throw e;
      } else if (t instanceof Error e) {
        throw e;
      } else if (t != null) {
        throw new IllegalStateException(t);
      }
    }
  }
}
