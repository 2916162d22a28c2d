package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** mnist-replica --sync_replicas as a user runs it: real ps and worker processes through local-cluster. */
class SyncReplicasIT {
  @Test
  void syncReplicasWithOnePsAndTwoWorkersLearnMnist() throws Exception {
    PsflowProcess.Result r = PsflowProcess.run(900, "local-cluster", "--ps=1", "--workers=2", "mnist-replica",
        "--sync_replicas", "--train_steps=2000", "--num_gpus=0");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output())
        .contains("[worker1] Worker 1: Waiting for session to be initialized...")
        .contains("[worker0] After 2000 training step(s), validation cross entropy = ")
        .contains("[worker1] After 2000 training step(s), validation cross entropy = ")
        .containsPattern("\\[worker0\\] Worker 0: sync replicas: 2 of 2 replicas aggregated per step, \\d+ stale "
            + "gradients dropped");
    assertThat(PsflowProcess.valueAfter(r, "test accuracy = ")).isGreaterThanOrEqualTo(0.96);
  }

  @Test
  void withABackupWorkerTrainingGoesOnWhileOneWorkerIsKilledAndRestarted() throws Exception {
    // Killed after its 10th step, not at a time: on a fast machine 1000 steps end within seconds.
    PsflowProcess.Result r = PsflowProcess.run(900, "local-cluster", "--ps=1", "--workers=3", "--restart-on-failure",
        "--kill=worker2@after:Worker 2: training step 10 done", "mnist-replica", "--sync_replicas",
        "--replicas_to_aggregate=2", "--train_steps=1000", "--num_gpus=0");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output())
        .contains("local-cluster: worker2 exited with code 137; restarting it")
        .contains("[worker0] After 1000 training step(s), validation cross entropy = ")
        .containsPattern("\\[worker0\\] Worker 0: sync replicas: 2 of 3 replicas aggregated per step");
    assertThat(r.output().lastIndexOf("[worker2] Training begins")).as("the restarted worker2 rejoins")
        .isGreaterThan(r.output().indexOf("worker2 exited with code 137; restarting it"));
    // 1000 steps of 2 aggregated batches measured 0.969-0.971 with the restart; 2000 steps hold 0.96 above.
    assertThat(PsflowProcess.valueAfter(r, "test accuracy = ")).isGreaterThanOrEqualTo(0.955);
  }
}
