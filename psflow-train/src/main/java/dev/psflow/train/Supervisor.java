package dev.psflow.train;

import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.Tensor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TensorFlow's {@code tf.train.Supervisor}, the part the replica example uses: the chief opens a
 * session and initializes the model (unless it is ready already — the variables live on the ps and
 * outlive a worker); every other worker opens its session and polls the ready op (the names of the
 * uninitialized variables) until the model is ready.
 *
 * <p>TensorFlow sleeps {@code recovery_wait_secs} between two polls (1 s in the replica example),
 * so a worker started beside its chief began training up to a second after it (0.8 s in the
 * README's job, where the chief trained alone meanwhile). Here the first poll comes after
 * {@value #FIRST_POLL_MS} ms and each later one after twice the wait before, up to
 * {@code recoveryWaitSecs}: a worker that waits long still polls at TensorFlow's pace. (The
 * TensorFlow reference harness this project is measured against polls every 100 ms for the same
 * reason.) On two busy cores it gains little: the README's job took 8.94 s against 9.00, its slower
 * worker's training 6.34 s against 6.46 (medians of 8 alternated pairs). The "waiting for" line is
 * TensorFlow's, at most once per {@code recoveryWaitSecs} unless what the worker waits for changed.
 *
 * <p>Given a saver and a log dir ({@link #withSaver}), the chief restores the latest checkpoint
 * there instead — also when the variables are initialized already (a restarted chief), as
 * TensorFlow's SessionManager does: training resumes from the checkpoint, not from whatever the
 * ps tasks hold.
 *
 * <p>With a local init op ({@link #withLocalInit}: the sync replicas' local step), every worker
 * runs it once the ready-for-local-init op reports nothing (the global variables it reads are
 * initialized), before the session is handed out; a non-chief waits for that too. Queue runners
 * started through {@link #startQueueRunners} are stopped by {@link #stop}.
 *
 * <pre>{@code
 * Supervisor sv = new Supervisor(graph, isChief, init, 1.0);
 * Session sess = sv.prepareOrWaitForSession(server.target(), options);
 * }</pre>
 */
public final class Supervisor {
  private static final Logger LOG = LoggerFactory.getLogger(Supervisor.class);
  static final long FIRST_POLL_MS = 100;

  private final Graph graph;
  private final boolean isChief;
  private final Operation initOp;
  private final Output readyOp;
  private final double recoveryWaitSecs;
  private Consumer<String> waitingLog = LOG::info;
  private Operation localInitOp;
  private Output readyForLocalInitOp;
  private final List<QueueRunner> queueRunners = new ArrayList<>();
  private Saver saver;
  private Path logDir;

  /** A supervisor whose ready op reports every global variable of {@code graph} built so far. */
  public Supervisor(Graph graph, boolean isChief, Operation initOp, double recoveryWaitSecs) {
    this(graph, isChief, initOp, Ops.create(graph).reportUninitializedVariables(), recoveryWaitSecs);
  }

  public Supervisor(Graph graph, boolean isChief, Operation initOp, Output readyOp, double recoveryWaitSecs) {
    if (recoveryWaitSecs <= 0) {
      throw new IllegalArgumentException("recovery_wait_secs must be positive, got " + recoveryWaitSecs);
    }
    this.graph = graph;
    this.isChief = isChief;
    this.initOp = initOp;
    this.readyOp = readyOp;
    this.recoveryWaitSecs = recoveryWaitSecs;
  }

  /** Where the non-chief's "waiting for ..." lines and the chief's "restored ..." line go (default: the log). */
  public Supervisor onWaiting(Consumer<String> log) {
    this.waitingLog = log;
    return this;
  }

  /**
   * Runs {@code localInitOp} on every worker once {@code readyForLocalInitOp} (names of variables
   * it needs, or null: no condition) reports nothing; TensorFlow's local_init_op and
   * ready_for_local_init_op.
   */
  public Supervisor withLocalInit(Operation localInitOp, Output readyForLocalInitOp) {
    this.localInitOp = localInitOp;
    this.readyForLocalInitOp = readyForLocalInitOp;
    return this;
  }

  /** The chief restores the latest checkpoint in {@code logDir}, when there is one, with {@code saver}. */
  public Supervisor withSaver(Saver saver, Path logDir) {
    this.saver = saver;
    this.logDir = logDir;
    return this;
  }

  public boolean isChief() {
    return isChief;
  }

  /**
   * Chief: a session with the model initialized. Others: a session once the chief has initialized
   * the model. The caller owns (closes) the session.
   */
  public Session prepareOrWaitForSession(String target, SessionOptions options) {
    Session s = Session.open(graph, target, options);
    try {
      if (isChief) {
        if (!restoreLatest(s) && uninitialized(s, readyOp).length > 0) {
          s.runner().addTarget(initOp).run();
        }
        String notReady = tryLocalInit(s);
        if (notReady != null) {
          throw new IllegalStateException("Init operations did not make model ready for local_init: " + notReady);
        }
        return s;
      }
      long waitMs = Math.max(1, (long) (recoveryWaitSecs * 1000));
      long pollMs = Math.min(FIRST_POLL_MS, waitMs);
      String logged = null;
      long loggedAt = 0;
      while (true) {
        String notReady = tryLocalInit(s);
        if (notReady == null) {
          String[] missing = uninitialized(s, readyOp);
          if (missing.length == 0) {
            return s;
          }
          notReady = "variables not initialized: " + String.join(", ", missing);
        }
        long now = System.nanoTime();
        if (!notReady.equals(logged) || now - loggedAt >= waitMs * 1_000_000) {
          waitingLog.accept("Waiting for model to be ready: " + notReady);
          logged = notReady;
          loggedAt = now;
        }
        Thread.sleep(pollMs);
        pollMs = Math.min(2 * pollMs, waitMs);
      }
    } catch (InterruptedException e) {
      s.close();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the chief to initialize the model", e);
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** Restores the latest checkpoint of the log dir, if any; returns whether it did. */
  private boolean restoreLatest(Session s) {
    Optional<Path> latest = saver == null ? Optional.empty() : Saver.latestCheckpoint(logDir);
    if (latest.isEmpty()) {
      return false;
    }
    saver.restore(s, latest.get());
    waitingLog.accept("Restored model from checkpoint " + latest.get());
    return true;
  }

  /** Runs the local init op when its condition holds; returns null, or what it still waits for. */
  private String tryLocalInit(Session s) {
    if (localInitOp == null) {
      return null;
    }
    if (readyForLocalInitOp != null) {
      String[] missing = uninitialized(s, readyForLocalInitOp);
      if (missing.length > 0) {
        return "ready_for_local_init: variables not initialized: " + String.join(", ", missing);
      }
    }
    s.runner().addTarget(localInitOp).run();
    return null;
  }

  /** Starts {@code runners} on {@code session} (the chief's queue runner); {@link #stop} stops them. */
  public void startQueueRunners(Session session, List<QueueRunner> runners) {
    for (QueueRunner r : runners) {
      r.start(session);
      queueRunners.add(r);
    }
  }

  /** Stops the queue runners it started. */
  public void stop() {
    for (QueueRunner r : queueRunners) {
      r.stop();
    }
    queueRunners.clear();
  }

  private static String[] uninitialized(Session s, Output report) {
    Tensor t = s.runner().fetch(report).run().get(0);
    return Arrays.copyOf(t.stringData(), t.size());
  }
}
