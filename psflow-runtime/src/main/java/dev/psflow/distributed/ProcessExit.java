package dev.psflow.distributed;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a psflow process ends before it exits: its servers, then the threads its transport keeps
 * for the whole process (the event loops). Why: HotSpot's exit waits up to 300 ms for every thread
 * that is running native code to stop (VM_Exit's wait for threads in native), and an idle event
 * loop is one, blocked in {@code epoll_wait}; a worker's exit took 0.32–0.37 s after its last line,
 * nearly all of it that wait. The CLI calls {@link #release()} from a shutdown hook, which the JVM
 * runs to its end before it halts: after {@code System.exit}, and when SIGTERM stops a ps. A program
 * embedding psflow may call it too.
 *
 * <p>Thread-safe; {@link #release()} may run more than once, and concurrently.
 */
public final class ProcessExit {
  private static final Set<Server> LIVE_SERVERS = ConcurrentHashMap.newKeySet();
  private static final List<Runnable> TRANSPORT_RELEASES = new CopyOnWriteArrayList<>();

  private ProcessExit() {}

  static void serving(Server s) {
    LIVE_SERVERS.add(s);
  }

  static void stopped(Server s) {
    LIVE_SERVERS.remove(s);
  }

  /**
   * A transport registers here how to end its process-wide threads, once it has started them (so
   * that a process that never used one loads none of its classes at exit).
   */
  public static void onRelease(Runnable endThreads) {
    TRANSPORT_RELEASES.add(endThreads);
  }

  /** Stops every server of this process, then ends the transports' threads. */
  public static void release() {
    for (Server s : List.copyOf(LIVE_SERVERS)) {
      s.stop();
    }
    for (Runnable r : TRANSPORT_RELEASES) {
      r.run();
    }
  }
}
