package dev.psflow.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What a ps task says of each replica: its last step, and for sync replicas only once all its gradients arrived. */
class ReplicaActivityTest {
  private static final String W0 = "/job:worker/replica:0/task:0";
  private static final List<String> ACCUMULATORS = List.of("hid_w_acc", "sm_w_acc");

  @Test
  void anAsyncReplicaIsAtTheGlobalStepItLastRead() {
    ReplicaActivity a = new ReplicaActivity();
    a.heard(W0, 41);
    a.heard(W0, 42);
    assertThat(a.snapshot(List.of())).singleElement().satisfies(r -> {
      assertThat(r.task()).isEqualTo(W0);
      assertThat(r.lastStep()).isEqualTo(42);
    });
  }

  @Test
  void aSyncReplicaHasNotContributedAStepWhileOneOfTheAccumulatorsStillLacksItsGradient() {
    ReplicaActivity a = new ReplicaActivity();
    a.stepSeen(W0, "hid_w_acc", 7);
    a.stepSeen(W0, "sm_w_acc", 7);
    a.stepSeen(W0, "sm_w_acc", 8); // stopped before its hid_w gradient for step 8 arrived
    a.heard(W0, 9); // the global step it read does not move a sync replica
    assertThat(a.snapshot(ACCUMULATORS)).singleElement().extracting(WorkerClient.ReplicaSeen::lastStep).isEqualTo(7L);
    a.stepSeen(W0, "hid_w_acc", 8);
    assertThat(a.snapshot(ACCUMULATORS)).singleElement().extracting(WorkerClient.ReplicaSeen::lastStep).isEqualTo(8L);
  }

  @Test
  void aSyncReplicaWithNoGradientInOneAccumulatorIsAtNoStep() {
    ReplicaActivity a = new ReplicaActivity();
    a.stepSeen(W0, "sm_w_acc", 0);
    assertThat(a.snapshot(ACCUMULATORS)).singleElement().extracting(WorkerClient.ReplicaSeen::lastStep).isEqualTo(-1L);
  }

  @Test
  void callersWithoutANameAreNotTracked() {
    ReplicaActivity a = new ReplicaActivity();
    a.heard("", 3);
    a.stepSeen(null, "sm_w_acc", 3);
    assertThat(a.snapshot(ACCUMULATORS)).isEmpty();
  }
}
