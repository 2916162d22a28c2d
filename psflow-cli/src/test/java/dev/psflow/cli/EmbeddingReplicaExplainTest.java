package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code psflow explain embedding-replica}: the 250M-parameter table (over the 64 MiB threshold) is
 * split into one shard per ps task by default, each ps holds its shard and its Adagrad accumulator
 * (bytes per task shown), only rows and ids cross, and no table is read whole.
 */
class EmbeddingReplicaExplainTest {
  private static String explain(String... flags) {
    String[] args = new String[flags.length + 2];
    args[0] = "explain";
    args[1] = "embedding-replica";
    System.arraycopy(flags, 0, args, 2, flags.length);
    return PsflowInJvm.stdout(args);
  }

  @Test
  void theBigTableIsSplitOverTheFourPsTasksAndEachHoldsItsShardAndSlot() {
    String r = explain();
    // 7,812,500 / 4 rows × 32 floats × 4 bytes = 250,000,000 bytes, twice (table shard and Adagrad accumulator).
    for (int p = 0; p < 4; p++) {
      assertThat(r).containsPattern("  /job:ps/task:" + p + " +5\\d\\d,\\d\\d\\d,\\d\\d\\d\n");
      assertThat(r).contains("Adagrad/update_embeddings/part_" + p + "/ResourceSparseApplyAdagrad");
    }
    assertThat(r).contains("Variables held per task (bytes, optimizer slots included):");
    assertThat(r).as("no shard is read whole").doesNotContainPattern("ReadVariableOp ×\\d+ +[^\n]*embeddings/part");
  }

  @Test
  void underTheThresholdTheTableStaysWhole() {
    String r = explain("--vocab_size=1000", "--partition_threshold_mb=1");
    assertThat(r).contains("embeddings/part_0").doesNotContain("embeddings/part_1");
  }
}
