package dev.psflow.train;

import dev.psflow.exec.RunRequest;
import dev.psflow.exec.Runner;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * TensorFlow's {@code tf.train.MonitoredTrainingSession}: a session for a training loop that
 * creates itself through a {@link Supervisor} (the chief restores the latest checkpoint or
 * initializes the model; the others wait until it is ready), calls {@link SessionRunHook}s around
 * every run, and recovers from a lost task. A run failing with ABORTED or UNAVAILABLE (a ps
 * process died or restarted and lost its variables) closes the session, creates a new one — which
 * waits for the task to answer again and, on the chief, restores the latest checkpoint; the
 * others wait for that — calls the hooks' {@code afterCreateSession} again and retries the run.
 * Each recovery logs one line naming the error. Other failures propagate and mark the session
 * failed: closing it then skips the end hooks.
 *
 * <p>Build with {@link #builder}; the build blocks until the first session is ready. Runs are
 * serialized (one thread drives training); the caller must close it.
 *
 * <pre>{@code
 * try (MonitoredTrainingSession mts = MonitoredTrainingSession.builder(graph).target(server.target())
 *     .chief(task == 0).checkpointDir(logDir).saveCheckpointSecs(10).globalStep(globalStep)
 *     .hook(new StopAtStepHook(globalStep, 2000)).build()) {
 *   while (!mts.shouldStop()) {
 *     mts.run(r -> r.feed(x, images).feed(y, labels).addTarget(train));
 *   }
 * }
 * }</pre>
 */
public final class MonitoredTrainingSession implements Session {
  private static final Pattern TASK = Pattern.compile("/job:[A-Za-z0-9_]+/replica:\\d+/task:\\d+");

  private final Graph graph;
  private final String target;
  private final SessionOptions options;
  private final Supervisor supervisor;
  private final List<SessionRunHook> hooks;
  private final double recoveryWaitSecs;
  private final Consumer<String> log;
  private final ReentrantLock lock = new ReentrantLock();
  private Session session;
  private boolean stopRequested;
  private boolean failed;
  private boolean closed;
  private int recoveries;

  MonitoredTrainingSession(MonitoredTrainingSessionBuilder b, Supervisor supervisor, List<SessionRunHook> hooks) {
    this.graph = b.graph;
    this.target = b.target;
    this.options = b.options;
    this.supervisor = supervisor;
    this.hooks = List.copyOf(hooks);
    this.recoveryWaitSecs = b.recoveryWaitSecs;
    this.log = b.log;
  }

  /** Starts describing a monitored training session on {@code graph}. */
  public static MonitoredTrainingSessionBuilder builder(Graph graph) {
    return new MonitoredTrainingSessionBuilder(graph);
  }

  /** Calls the hooks' begin, then creates the first session (blocking until the model is ready). */
  MonitoredTrainingSession start() {
    hooks.forEach(SessionRunHook::begin);
    lock.lock();
    try {
      current();
    } finally {
      lock.unlock();
    }
    return this;
  }

  /** One hooked, recoverable run, described on a runner: {@code mts.run(r -> r.feed(x, t).fetch(y))}. */
  public List<Tensor> run(Consumer<Runner> describe) {
    Runner r = runner();
    describe.accept(r);
    return r.run();
  }

  /**
   * Runs {@code request} with the hooks' fetches added; on ABORTED or UNAVAILABLE recovers (see the
   * class comment) and runs it again. Returns the caller's fetches only.
   */
  @Override
  public List<Tensor> run(RunRequest request) {
    return recoverably(s -> runHooked(s, request).outputs());
  }

  /** As {@link #run}, with the step's metadata (its statistics when the request's options trace). */
  @Override
  public Run runWithMetadata(RunRequest request) {
    return recoverably(s -> runHooked(s, request));
  }

  /**
   * Runs {@code step} on the session under this one, without the hooks (TensorFlow's
   * {@code run_step_fn} with {@code step_context.session}): for evaluation or bookkeeping runs that
   * are no training steps and do not feed what the hooks fetch. Recovers as {@link #run(RunRequest)}
   * does, calling {@code step} again on the new session.
   */
  public <T> T runWithoutHooks(Function<Session, T> step) {
    return recoverably(step);
  }

  private <T> T recoverably(Function<Session, T> step) {
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("the monitored training session is closed");
      }
      while (true) {
        Session s = current();
        try {
          return step.apply(s);
        } catch (StatusException e) {
          if (!e.code().isRecoverable()) {
            failed = true;
            throw e;
          }
          recover(e);
        } catch (RuntimeException | Error e) {
          failed = true;
          throw e;
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private Run runHooked(Session s, RunRequest request) {
    SessionRunContext context = new SessionRunContext(request, s);
    // One fetch per distinct tensor: the caller and several hooks often fetch the same global step.
    Map<Output, Integer> index = new LinkedHashMap<>();
    request.fetches().forEach(o -> index.putIfAbsent(o, index.size()));
    List<List<Output>> asked = new ArrayList<>(hooks.size());
    for (SessionRunHook h : hooks) {
      List<Output> fetches = h.beforeRun(context);
      asked.add(fetches);
      fetches.forEach(o -> index.putIfAbsent(o, index.size()));
    }
    Run run = s.runWithMetadata(new RunRequest(request.feeds(), request.feedValues(), List.copyOf(index.keySet()),
        request.targets(), request.options()));
    List<Tensor> out = run.outputs();
    for (int i = 0; i < hooks.size(); i++) {
      hooks.get(i).afterRun(context, pick(out, index, asked.get(i)));
    }
    stopRequested |= context.stopRequested();
    return new Run(pick(out, index, request.fetches()), run.metadata());
  }

  private static List<Tensor> pick(List<Tensor> out, Map<Output, Integer> index, List<Output> wanted) {
    List<Tensor> r = new ArrayList<>(wanted.size());
    wanted.forEach(o -> r.add(out.get(index.get(o))));
    return r;
  }

  /** The current session, created (and the hooks told) when there is none; retries recoverable failures. */
  private Session current() {
    while (session == null) {
      Session s = null;
      try {
        s = supervisor.prepareOrWaitForSession(target, options);
        for (SessionRunHook h : hooks) {
          h.afterCreateSession(s);
        }
        session = s;
      } catch (StatusException e) {
        closeQuietly(s);
        if (!e.code().isRecoverable()) {
          throw e;
        }
        log.accept(describe(e) + " while creating a session; trying again in " + recoveryWaitSecs + " s");
        sleep(recoveryWaitSecs);
      } catch (RuntimeException e) {
        closeQuietly(s);
        throw e;
      }
    }
    return session;
  }

  private void recover(StatusException e) {
    recoveries++;
    log.accept(describe(e) + "; recovering");
    closeQuietly(session);
    session = null;
  }

  /** "lost /job:ps/replica:0/task:0 (UNAVAILABLE: ...)" when the message names a task, else "session failed (...)". */
  static String describe(StatusException e) {
    Matcher m = TASK.matcher(String.valueOf(e.getMessage()));
    String what = m.find() ? "lost " + m.group() : "session failed";
    return what + " (" + e.code() + ": " + e.getMessage() + ")";
  }

  /** Whether a hook asked training to stop, or the session is closed. */
  public boolean shouldStop() {
    lock.lock();
    try {
      return stopRequested || closed;
    } finally {
      lock.unlock();
    }
  }

  /** How many times a run recovered from a lost task. */
  public int recoveries() {
    lock.lock();
    try {
      return recoveries;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Graph graph() {
    return graph;
  }

  /**
   * Calls the hooks' end (unless a run failed), recovering as a run does, then closes the session.
   * Idempotent.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (!failed) {
        endHooks();
      }
    } finally {
      closeQuietly(session);
      session = null;
      lock.unlock();
    }
  }

  private void endHooks() {
    while (true) {
      Session s = current();
      try {
        for (SessionRunHook h : hooks) {
          h.end(s);
        }
        return;
      } catch (StatusException e) {
        if (!e.code().isRecoverable()) {
          throw e;
        }
        recover(e);
      }
    }
  }

  private static void closeQuietly(Session s) {
    if (s != null) {
      try {
        s.close();
      } catch (RuntimeException e) {
        // the task behind it may be gone: nothing left to release there
      }
    }
  }

  private static void sleep(double secs) {
    try {
      Thread.sleep((long) (secs * 1000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw StatusException.cancelled("interrupted while recovering the session");
    }
  }
}
