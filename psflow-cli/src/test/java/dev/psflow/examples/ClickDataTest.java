package dev.psflow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The embedding benchmark's synthetic clicks: the same seed gives the same batches; ids are
 * skewed (a few rows take a large share) but spread over the table; each example's label is its
 * ids' hidden votes.
 */
class ClickDataTest {
  @Test
  void theSameSeedGivesTheSameBatches() {
    ClickData.Batch a = new ClickData(7_812_500, 16, 1.05, 42).nextBatch(64);
    ClickData.Batch b = new ClickData(7_812_500, 16, 1.05, 42).nextBatch(64);
    ClickData.Batch c = new ClickData(7_812_500, 16, 1.05, 43).nextBatch(64);
    assertThat(a.ids()).isEqualTo(b.ids());
    assertThat(a.labels()).isEqualTo(b.labels());
    assertThat(a.ids()).isNotEqualTo(c.ids());
  }

  @Test
  void aBatchIsOneRowOfIdsPerExampleAsTheSparseFeedWantsIt() {
    ClickData.Batch b = new ClickData(1000, 3, 1.05, 1).nextBatch(2);
    assertThat(b.indices().longData()).containsExactly(0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2);
    assertThat(b.denseShape().longData()).containsExactly(2, 3);
    assertThat(Arrays.stream(b.ids().longData())).allSatisfy(id -> assertThat(id).isBetween(0L, 999L));
    assertThat(b.distinctIds()).isBetween(1, 6);
  }

  @Test
  void idsAreZipfSkewedYetSpreadOverTheTable() {
    ClickData data = new ClickData(7_812_500, 16, 1.05, 7);
    Map<Long, Integer> counts = new HashMap<>();
    int n = 0;
    long[] perQuarter = new long[4];
    for (int i = 0; i < 50; i++) {
      for (long id : data.nextBatch(100).ids().longData()) {
        counts.merge(id, 1, Integer::sum);
        perQuarter[(int) (id / 1_953_125)]++;
        n++;
      }
    }
    int top = counts.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    assertThat(top).as("the most popular id's share").isGreaterThan(n / 50);
    assertThat(counts.size()).as("distinct ids").isGreaterThan(n / 4);
    for (long q : perQuarter) {
      assertThat(q).as("ids per quarter of the table").isGreaterThan(n / 10);
    }
  }

  @Test
  void anExampleIsClickedWhenItsIdsVotesSumAboveZero() {
    ClickData.Batch b = new ClickData(1000, 5, 1.05, 3).nextBatch(200);
    long[] ids = b.ids().longData();
    float[] labels = b.labels().floatData();
    for (int e = 0; e < 200; e++) {
      int votes = 0;
      for (int j = 0; j < 5; j++) {
        votes += ClickData.vote(ids[e * 5 + j]);
      }
      assertThat(labels[e]).isEqualTo(votes > 0 ? 1f : 0f); // 5 votes of ±1 never tie
    }
  }

  @Test
  void aZipfExponentOfOneIsRefused() {
    assertThatThrownBy(() -> new ClickData(1000, 5, 1.0, 1)).hasMessageContaining("Zipf exponent");
  }
}
