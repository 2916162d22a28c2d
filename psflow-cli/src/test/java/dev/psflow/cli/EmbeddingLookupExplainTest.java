package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code psflow explain embedding-lookup}: each ps task gathers and updates its own shard, and the
 * only tensors crossing per step are each shard's ids and gradient rows (to its ps) and its rows
 * (back), plus the control edges that order the updates.
 */
class EmbeddingLookupExplainTest {
  private static String explain(String... flags) {
    String[] args = new String[flags.length + 2];
    args[0] = "explain";
    args[1] = "embedding-lookup";
    System.arraycopy(flags, 0, args, 2, flags.length);
    return PsflowInJvm.stdout(args);
  }

  @Test
  void eachPsGathersAndUpdatesItsShardAndOnlyIdsAndRowsCross() {
    String r = explain("--ps_hosts=h:1,h:2,h:3", "--worker_hosts=h:4");
    for (int p = 0; p < 3; p++) {
      String suffix = p == 0 ? "" : "_" + p;
      assertThat(r).containsPattern("(?s)/job:ps/task:" + p + " — .*ResourceGather ×1\\s+embedding_lookup/ResourceGather" + suffix
          + "\n.*ResourceScatterSub ×1\\s+GradientDescent/update_embeddings/part_" + p + "/ResourceScatterSub\n");
      assertThat(r).containsPattern("embedding_lookup/ResourceGather" + suffix + ":0 +\\[\\?,32\\] +\\? +/job:ps/task:" + p
          + " -> /job:worker/task:0");
      assertThat(r).containsPattern("embedding_lookup/DynamicPartition:" + p + " +\\[\\?\\] +\\? +/job:worker/task:0 -> /job:ps/task:" + p);
      assertThat(r).containsPattern("gradients/embedding_lookup/ParallelDynamicStitch_grad/GatherV2" + suffix
          + ":0 +\\[\\?,32\\] +\\? +/job:worker/task:0 -> /job:ps/task:" + p);
    }
    long dataCrossings = r.lines().filter(l -> l.matches("^  [a-z].* -> /job:.*")).count();
    assertThat(dataCrossings).as(r).isEqualTo(9);
    assertThat(r).as("no shard is read whole").doesNotContain("ReadVariableOp");
  }
}
