package dev.psflow.distributed;

import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for the tasks a session needs to answer GetStatus, with backoff, logging which task it
 * waits for and why ("waiting for /job:ps/replica:0/task:0 at localhost:2222 (... is unreachable:
 * Connection refused)"); fails with UNAVAILABLE naming the tasks still missing after the timeout, and
 * at once with PERMISSION_DENIED when a task refuses this one's certificate the call (no wait mends that).
 */
final class PeerWaiter {
  private static final Logger LOG = LoggerFactory.getLogger(PeerWaiter.class);

  private final WorkerCache workers;
  private final long timeoutMillis;

  PeerWaiter(WorkerCache workers, long timeoutMillis) {
    this.workers = workers;
    this.timeoutMillis = timeoutMillis;
  }

  void awaitTasks(List<String> devices) {
    Set<String> waiting = new LinkedHashSet<>();
    Map<String, String> why = new HashMap<>();
    devices.forEach(d -> waiting.add(StepRendezvous.taskOf(d)));
    long deadline = System.currentTimeMillis() + timeoutMillis;
    long backoff = 50;
    long nextLog = 0;
    while (true) {
      waiting.removeIf(t -> answers(t, why));
      if (waiting.isEmpty()) {
        return;
      }
      long now = System.currentTimeMillis();
      if (now >= deadline) {
        throw new StatusException(Code.UNAVAILABLE, "tasks " + describe(waiting) + " did not answer within "
            + timeoutMillis / 1000 + " s; start them, or check --ps_hosts/--worker_hosts");
      }
      if (now >= nextLog) {
        for (String t : waiting) {
          LOG.info("waiting for {} at {} ({})", t, workers.address(t), why.get(t));
        }
        nextLog = now + 10_000;
      }
      sleep(Math.min(backoff, deadline - now));
      backoff = Math.min(backoff * 2, 1000);
    }
  }

  private boolean answers(String task, Map<String, String> why) {
    try {
      workers.client(task).getStatus(2000).join();
      return true;
    } catch (CompletionException e) {
      StatusException s = StatusException.from(e.getCause() != null ? e.getCause() : e);
      if (s.code() == Code.PERMISSION_DENIED) {
        throw s;
      }
      // gRPC's deadline message lists its channel's internals; what matters is that it did not answer.
      why.put(task, s.code() == Code.DEADLINE_EXCEEDED ? "no answer within 2 s" : s.getMessage());
      return false;
    }
  }

  private String describe(Set<String> tasks) {
    StringBuilder sb = new StringBuilder();
    for (String t : tasks) {
      sb.append(sb.isEmpty() ? "" : ", ").append(t).append(" at ").append(workers.address(t));
    }
    return sb.toString();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(Math.max(1, millis));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw StatusException.cancelled("interrupted while waiting for peer tasks");
    }
  }
}
