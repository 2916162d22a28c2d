package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A scaled-down {@code psflow embedding-replica} (156,250 × 32 floats: 5M parameters, over an 8 MiB
 * threshold so it is partitioned automatically) over four real ps processes and two workers: each
 * ps holds one shard, the logistic loss falls from ln 2 to under 0.6, and each worker's bytes on
 * the wire per step stay within 10% of the rows it touched (pulled, and their gradients pushed),
 * their ids and the dense head.
 */
class EmbeddingReplicaIT {
  private static final Pattern LOSS = Pattern.compile(
      "\\[worker(\\d)\\] Worker \\d: loss: first step (\\d+\\.\\d+), mean of the last \\d+ steps (\\d+\\.\\d+)");
  private static final Pattern WIRE = Pattern.compile("\\[worker\\d\\] Worker \\d: wire per step: .* ratio (\\d+\\.\\d+)");

  @Test
  void fourPsAndTwoAsyncWorkersTrainTheShardedTableMovingOnlyTheRowsTheyTouch() throws Exception {
    PsflowProcess.Result r = PsflowProcess.run(240, "local-cluster", "--ps=4", "--workers=2", "--insecure",
        "embedding-replica", "--vocab_size=156250", "--partition_threshold_mb=8", "--batch_size=256",
        "--train_steps=160");
    assertThat(r.exitCode()).as(r.output()).isZero();
    for (int p = 0; p < 4; p++) {
      assertThat(r.output()).contains("[worker0] Worker 0: embeddings/part_" + p + " [" + (p < 2 ? 39063 : 39062)
          + ",32] on /job:ps/task:" + p + "/device:CPU:0");
    }
    Matcher loss = LOSS.matcher(r.output());
    int workers = 0;
    double firstStep = 0;
    while (loss.find()) {
      workers++;
      System.out.println(loss.group()); // the figures, kept in the test report
      firstStep = Math.max(firstStep, Double.parseDouble(loss.group(2)));
      assertThat(Double.parseDouble(loss.group(3))).as(loss.group()).isLessThan(0.58);
    }
    assertThat(workers).as(r.output()).isEqualTo(2);
    // The worker that steps first sees the untrained model: loss near ln 2 = 0.693 (the other may start later).
    assertThat(firstStep).as(r.output()).isGreaterThan(0.62);
    Matcher wire = WIRE.matcher(r.output());
    assertThat(wire.find()).as(r.output()).isTrue();
    System.out.println(wire.group());
    assertThat(Double.parseDouble(wire.group(1))).as(wire.group()).isBetween(1.0, 1.1);
  }
}
