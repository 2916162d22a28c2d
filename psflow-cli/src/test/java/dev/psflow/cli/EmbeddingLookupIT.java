package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A 50,000 × 32 embedding table split over three real ps processes and trained from a worker
 * process through sparse lookups: the worker's bytes on the wire per step stay within 10% of the
 * rows it uses (to the worker and their gradients back) plus its ids, and the loss falls.
 */
class EmbeddingLookupIT {
  private static final Pattern WIRE = Pattern.compile(
      "\\[worker0\\] Worker 0: wire per step: (\\d+) bytes measured over \\d+ steps .* ideal (\\d+) bytes = .* ratio (\\d+\\.\\d+)");
  private static final Pattern LOSS = Pattern.compile(
      "\\[worker0\\] Worker 0: loss per example: first step (\\d+\\.\\d+), last step (\\d+\\.\\d+)");

  @Test
  void aLookupOverThreePsMovesOnlyTheRowsItUses() throws Exception {
    PsflowProcess.Result r = PsflowProcess.run(180, "local-cluster", "--ps=3", "--workers=1", "embedding-lookup",
        "--vocabulary_size=50000", "--embedding_dim=32", "--batch_size=1024", "--train_steps=200");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output())
        .contains("[worker0] Worker 0: embeddings/part_0 [16667,32] on /job:ps/task:0")
        .contains("[worker0] Worker 0: embeddings/part_2 [16666,32] on /job:ps/task:2");
    Matcher wire = WIRE.matcher(r.output());
    assertThat(wire.find()).as(r.output()).isTrue();
    System.out.println(wire.group()); // the figure, kept in the test report
    long measured = Long.parseLong(wire.group(1));
    long ideal = Long.parseLong(wire.group(2));
    assertThat(ideal).isEqualTo(1024L * 32 * 4 * 2 + 1024L * 8);
    assertThat((double) measured / ideal).as(wire.group()).isBetween(1.0, 1.1);
    Matcher loss = LOSS.matcher(r.output());
    assertThat(loss.find()).as(r.output()).isTrue();
    assertThat(Double.parseDouble(loss.group(2))).as(loss.group()).isLessThan(0.5 * Double.parseDouble(loss.group(1)));
  }
}
