package dev.psflow.exec;

import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits for a step's result with a deadline, turning every failure into a StatusException. */
public final class Steps {
  private Steps() {}

  public static List<Tensor> await(CompletableFuture<List<Tensor>> result, StepContext step, long timeoutMillis) {
    return awaitResult(result, step, timeoutMillis);
  }

  /** As {@link #await}, for any step result (a {@link Session.Run}, say). */
  public static <T> T awaitResult(CompletableFuture<T> result, StepContext step, long timeoutMillis) {
    try {
      return timeoutMillis > 0 ? result.get(timeoutMillis, TimeUnit.MILLISECONDS) : result.get();
    } catch (TimeoutException e) {
      StatusException s = new StatusException(Code.DEADLINE_EXCEEDED,
          "step " + step.stepId() + " did not finish within " + timeoutMillis + " ms");
      step.cancellation().cancel(s);
      throw s;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      StatusException s = StatusException.cancelled("interrupted while waiting for step " + step.stepId());
      step.cancellation().cancel(s);
      throw s;
    } catch (ExecutionException e) {
      throw rethrowable(e.getCause());
    } catch (CancellationException e) {
      throw StatusException.cancelled("step " + step.stepId() + " was cancelled");
    }
  }

  /** A fresh exception (with this thread's stack) carrying the failure's code and message. */
  private static StatusException rethrowable(Throwable t) {
    StatusException s = StatusException.from(t);
    return new StatusException(s.code(), s.getMessage(), s);
  }
}
