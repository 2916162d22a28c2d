package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** in-graph-replica as a user runs it: one client on worker 0, worker 1 only serving, real processes. */
class InGraphReplicaIT {
  @Test
  void oneClientTrainsTowersOnTwoWorkersAndTheServingWorkerExitsWhenItIsDone() throws Exception {
    PsflowProcess.Result r = PsflowProcess.run(300, "local-cluster", "--ps=1", "--workers=2", "in-graph-replica",
        "--train_steps=200");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output())
        .contains("[worker0] Worker 0: in-graph client: 2 towers on /job:worker/task:0, /job:worker/task:1")
        .contains("[worker1] Worker 1: serving tower 1 of the in-graph client until it is done")
        .containsPattern("\\[worker0\\] \\d+\\.\\d+: Worker 0: training step 200 done \\(global step: 200\\)")
        .doesNotContain("global step: 201")
        .contains("[worker0] After 200 training step(s), validation cross entropy = ")
        .containsPattern("\\[worker0\\] Training elapsed time: \\d+\\.\\d+ s")
        .contains("[worker1] Worker 1: the client is done")
        .doesNotContain("[worker1] Training begins");
    assertThat(PsflowProcess.valueAfter(r, "test accuracy = ")).isGreaterThanOrEqualTo(0.90);
  }
}
