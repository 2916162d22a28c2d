package dev.psflow.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DataSetTest {
  private static final int N = 10;

  /** Example i has image [i, 100 + i] and label i % 3 (one-hot over 3 classes, or an int). */
  private static DataSet synthetic(boolean oneHot, long seed) {
    float[] x = new float[N * 2];
    float[] hot = new float[N * 3];
    int[] classes = new int[N];
    for (int i = 0; i < N; i++) {
      x[2 * i] = i;
      x[2 * i + 1] = 100 + i;
      hot[3 * i + i % 3] = 1;
      classes[i] = i % 3;
    }
    Tensor labels = oneHot ? Tensor.of(hot, N, 3) : Tensor.of(classes, N);
    return new DataSet(Tensor.of(x, N, 2), labels, seed);
  }

  /** The example indices of a batch, checking each row's second feature and label agree. */
  private static List<Integer> ids(Batch b) {
    float[] x = b.images().floatData();
    List<Integer> ids = new ArrayList<>();
    for (int r = 0; r < x.length / 2; r++) {
      int id = (int) x[2 * r];
      assertThat(x[2 * r + 1]).isEqualTo(100 + id);
      if (b.labels().dtype() == DType.INT32) {
        assertThat(b.labels().intData()[r]).isEqualTo(id % 3);
      } else {
        assertThat(b.labels().floatData()[3 * r + id % 3]).isEqualTo(1f);
      }
      ids.add(id);
    }
    return ids;
  }

  @Test
  void batchesHaveTheRightShapes() {
    Batch hot = synthetic(true, 1).nextBatch(4);
    assertThat(hot.images().shape().toIntArray()).containsExactly(4, 2);
    assertThat(hot.labels().shape().toIntArray()).containsExactly(4, 3);
    Batch ints = synthetic(false, 1).nextBatch(4);
    assertThat(ints.labels().dtype()).isEqualTo(DType.INT32);
    assertThat(ints.labels().shape().toIntArray()).containsExactly(4);
    ids(hot);
    ids(ints);
  }

  @Test
  void withoutShuffleAnEpochEndingMidBatchWrapsToTheStart() {
    DataSet ds = synthetic(false, 1);
    assertThat(ids(ds.nextBatch(4, false))).containsExactly(0, 1, 2, 3);
    assertThat(ids(ds.nextBatch(4, false))).containsExactly(4, 5, 6, 7);
    assertThat(ds.epochsCompleted()).isZero();
    assertThat(ids(ds.nextBatch(4, false))).containsExactly(8, 9, 0, 1);
    assertThat(ds.epochsCompleted()).isEqualTo(1);
    assertThat(ids(ds.nextBatch(4, false))).containsExactly(2, 3, 4, 5);
  }

  @Test
  void aBatchCrossingAnEpochTakesTheOldRestThenTheNewlyShuffledStart() {
    DataSet ds = synthetic(true, 7);
    List<Integer> epoch1 = new ArrayList<>(ids(ds.nextBatch(4)));
    epoch1.addAll(ids(ds.nextBatch(4)));
    assertThat(epoch1).doesNotHaveDuplicates().isNotEqualTo(List.of(0, 1, 2, 3, 4, 5, 6, 7));
    List<Integer> crossing = ids(ds.nextBatch(4));
    assertThat(ds.epochsCompleted()).isEqualTo(1);
    epoch1.addAll(crossing.subList(0, 2)); // the rest of epoch 1 ...
    assertThat(epoch1).containsExactlyInAnyOrderElementsOf(IntStream.range(0, N).boxed().toList());

    List<Integer> epoch2 = new ArrayList<>(crossing.subList(2, 4)); // ... then epoch 2 begins
    epoch2.addAll(ids(ds.nextBatch(4)));
    epoch2.addAll(ids(ds.nextBatch(4)));
    assertThat(ds.epochsCompleted()).isEqualTo(1);
    assertThat(epoch2).containsExactlyInAnyOrderElementsOf(IntStream.range(0, N).boxed().toList());
    assertThat(ids(ds.nextBatch(N))).hasSize(N).doesNotHaveDuplicates(); // a whole epoch
    assertThat(ds.epochsCompleted()).isEqualTo(2);
  }

  @Test
  void aBatchEndingExactlyAtTheEpochEndDoesNotStartTheNextEpoch() {
    DataSet ds = synthetic(false, 3);
    ids(ds.nextBatch(5));
    ids(ds.nextBatch(5));
    assertThat(ds.epochsCompleted()).isZero();
    ids(ds.nextBatch(3));
    assertThat(ds.epochsCompleted()).isEqualTo(1);
  }

  @Test
  void theSameSeedGivesTheSameBatches() {
    DataSet a = synthetic(true, 42);
    DataSet b = synthetic(true, 42);
    DataSet c = a.withSeed(43);
    List<Integer> fromA = new ArrayList<>();
    List<Integer> fromB = new ArrayList<>();
    List<Integer> fromC = new ArrayList<>();
    for (int i = 0; i < 20; i++) { // 30 batches of 3 across 9 epochs
      fromA.addAll(ids(a.nextBatch(3)));
      fromB.addAll(ids(b.nextBatch(3)));
      fromC.addAll(ids(c.nextBatch(3)));
    }
    assertThat(fromA).isEqualTo(fromB).isNotEqualTo(fromC);
    assertThat(a.withSeed(42).nextBatch(3).images()).isEqualTo(synthetic(true, 42).nextBatch(3).images());
  }

  @Test
  void withSeedSharesTheDataButStartsAFreshEpoch() {
    DataSet a = synthetic(false, 1);
    a.nextBatch(N);
    a.nextBatch(1);
    DataSet b = a.withSeed(5);
    assertThat(b.images()).isSameAs(a.images());
    assertThat(b.labels()).isSameAs(a.labels());
    assertThat(b.epochsCompleted()).isZero();
    assertThat(a.epochsCompleted()).isEqualTo(1);
  }

  @Test
  void shufflingLeavesTheStoredDataInFileOrder() {
    DataSet ds = synthetic(false, 9);
    for (int i = 0; i < 7; i++) {
      ds.nextBatch(3);
    }
    assertThat(ds.images().floatData()[2 * 4]).isEqualTo(4f);
    assertThat(ds.labels().intData()).containsExactly(0, 1, 2, 0, 1, 2, 0, 1, 2, 0);
  }

  @Test
  void shardTakesEveryCountThExampleFromIndex() {
    DataSet ds = synthetic(true, 1);
    DataSet s1 = ds.shard(1, 3);
    assertThat(s1.numExamples()).isEqualTo(3);
    assertThat(ids(s1.nextBatch(3, false))).containsExactly(1, 4, 7);
    assertThat(ids(ds.shard(0, 3).nextBatch(4, false))).containsExactly(0, 3, 6, 9);
    assertThat(ds.shard(0, 1).numExamples()).isEqualTo(N);
    assertThat(ids(synthetic(false, 1).shard(2, 4).nextBatch(2, false))).containsExactly(2, 6);
    assertThatThrownBy(() -> ds.shard(3, 3)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 3");
  }

  @Test
  void callerMistakesFailFastWithTheValue() {
    DataSet ds = synthetic(true, 1);
    assertThatThrownBy(() -> ds.nextBatch(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 0");
    assertThatThrownBy(() -> ds.nextBatch(N + 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 11");
    Tensor x = Tensor.of(new float[4], 2, 2);
    assertThatThrownBy(() -> new DataSet(x, Tensor.of(new int[3], 3), 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 examples");
    assertThatThrownBy(() -> new DataSet(x, Tensor.of(new long[2], 2), 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("int64");
  }

  @Test
  void imagesKeptAsPixelBytesAreScaledAsTheyAreCopiedOut() {
    byte[] pixels = {9, 9, 0, (byte) 255, 1, (byte) 128}; // one byte of padding, then 3 x 2 pixels
    float scale = (float) (1.0 / 255.0);
    ImageRows rows = new ImageRows.Pixels(pixels, 1, 2, 2, scale);
    DataSet ds = new DataSet(rows, Tensor.of(new int[] {0, 1}, 2), 7);
    float[] expected = {9 * scale, 0f, 255 * scale, 1 * scale};
    assertThat(ds.images().floatData()).containsExactly(expected);
    assertThat(ds.nextBatch(2, false).images().floatData()).containsExactly(expected);
    assertThat(ds.shard(1, 2).images().floatData()).containsExactly(255 * scale, 1 * scale);
  }

  @Test
  void pixelsThatDoNotFitTheirArrayAreRefused() {
    assertThatThrownBy(() -> new ImageRows.Pixels(new byte[5], 2, 2, 2, 1f))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("do not fit in 5 bytes");
  }
}
