package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Backup workers, as a user runs them: sync training aggregating 2 of 3 workers' gradients loses a
 * worker for good (killed mid-training, no restart) and trains on to the end without it.
 */
class BackupWorkersIT {
  @Test
  void syncTrainingWithABackupWorkerFinishesWithoutTheWorkerItLost() throws Exception {
    PsflowProcess.Result r = PsflowProcess.run(600, "local-cluster", "--ps=1", "--workers=3",
        "--kill=worker2@after:Worker 2: training step 20 done", "mnist-replica", "--sync_replicas",
        "--replicas_to_aggregate=2", "--train_steps=400", "--num_gpus=0");

    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output())
        .contains("local-cluster: killing worker2")
        .containsOnlyOnce("local-cluster: worker2 exited with code 137; going on without it (backup worker 1 of at "
            + "most 1 the job can lose)")
        .contains("[worker0] After 400 training step(s), validation cross entropy = ")
        .containsPattern("\\[worker0\\] Worker 0: sync replicas: 2 of 3 replicas aggregated per step");
    assertThat(PsflowProcess.valueAfter(r, "test accuracy = ")).isGreaterThanOrEqualTo(0.95);
  }
}
