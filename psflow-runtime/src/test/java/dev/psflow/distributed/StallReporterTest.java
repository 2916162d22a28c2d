package dev.psflow.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chief's stall line, from the ps tasks' statuses: who contributed to the step, who it waits for, since when. */
class StallReporterTest {
  private static final String W0 = "/job:worker/replica:0/task:0";
  private static final String W1 = "/job:worker/replica:0/task:1";
  private static final String W2 = "/job:worker/replica:0/task:2";

  private static WorkerClient.WorkerStatus ps(long accumulatorStep, long now, WorkerClient.ReplicaSeen... seen) {
    return new WorkerClient.WorkerStatus("/job:ps/replica:0/task:0", List.of(), 1, 412, 2, Map.of("token_q", 0),
        List.of(new WorkerClient.AccumulatorInfo("acc", 1, accumulatorStep, 0)), List.of(seen), now);
  }

  @Test
  void theLineNamesTheStepWhoContributedAndWhoItStillWaitsForWithWhenEachWasLastHeard() {
    long now = 1_000_000;
    var status = ps(412, now, new WorkerClient.ReplicaSeen(W0, 412, now - 100),
        new WorkerClient.ReplicaSeen(W1, 411, now - 33_200));
    assertThat(StallReporter.syncStep(List.of(status))).isEqualTo(412);
    assertThat(StallReporter.describe(412, 31_000, List.of(W0, W1, W2), List.of(status))).isEqualTo(
        "sync step 412 has waited 31.0 s: contributed: " + W0 + "; waiting for: " + W1
            + " (last heard 33.2 s ago, at step 411), " + W2 + " (never heard from)");
  }

  @Test
  void withSeveralPsTasksAWorkerHasContributedOnlyWhenEveryPsHasItsGradientsAndWasLastHeardAtTheMostRecentNews() {
    long now = 5_000;
    var ps0 = ps(7, now, new WorkerClient.ReplicaSeen(W0, 6, now - 4_000), new WorkerClient.ReplicaSeen(W1, 7, now - 500));
    var ps1 = ps(8, now, new WorkerClient.ReplicaSeen(W0, 7, now - 1_000), new WorkerClient.ReplicaSeen(W1, 7, now - 300));
    assertThat(StallReporter.syncStep(List.of(ps0, ps1))).isEqualTo(7);
    assertThat(StallReporter.describe(7, 4_000, List.of(W0, W1), List.of(ps0, ps1))).isEqualTo(
        "sync step 7 has waited 4.0 s: contributed: " + W1 + "; waiting for: " + W0 + " (last heard 1.0 s ago, at step 6)");
  }

  @Test
  void aPsTaskThatHasNeverHeardOfAWorkerHasNoneOfItsGradients() {
    long now = 5_000;
    var ps0 = ps(7, now, new WorkerClient.ReplicaSeen(W0, 7, now - 100), new WorkerClient.ReplicaSeen(W1, 7, now - 100));
    var ps1 = ps(7, now, new WorkerClient.ReplicaSeen(W0, 7, now - 100));
    assertThat(StallReporter.describe(7, 4_000, List.of(W0, W1), List.of(ps0, ps1))).isEqualTo(
        "sync step 7 has waited 4.0 s: contributed: " + W0 + "; waiting for: " + W1 + " (last heard 0.1 s ago, at step none)");
  }

  @Test
  void noAccumulatorsMeansNoSyncStep() {
    var async = new WorkerClient.WorkerStatus("/job:ps/replica:0/task:0", List.of(), 1);
    assertThat(StallReporter.syncStep(List.of(async))).isEqualTo(-1);
  }
}
