package dev.psflow.data;

import dev.psflow.tensor.DType;
import dev.psflow.tensor.Tensor;
import java.util.SplittableRandom;

/**
 * One split of a data set (MNIST's train, validation or test) held in memory, with TensorFlow's
 * {@code DataSet.next_batch} semantics: the examples are shuffled at the start of the first epoch
 * and again at the start of each new one; a batch that crosses the end of an epoch takes the rest
 * of the old epoch followed by the start of the newly shuffled one.
 *
 * <p>Images are {@code [numExamples, features]} FLOAT32 (MNIST's are kept as their pixel bytes and
 * scaled as a batch copies them, a quarter of the memory); labels are either one-hot
 * ({@code [numExamples, classes]} FLOAT32) or class indices ({@code [numExamples]} INT32). The
 * stored arrays are never modified (an epoch shuffles an index permutation, not the data), so
 * {@link #images()} and {@link #labels()} stay in file order and can be shared; a batch copies its
 * rows into fresh arrays.
 *
 * <p>Not thread-safe: the epoch position and the random generator are mutable. Give each worker
 * (or thread) its own DataSet, e.g. with {@link #withSeed(long)}, which shares the stored arrays.
 *
 * <pre>{@code
 * DataSet train = MnistDatasets.read(dataDir, true).train().withSeed(42);
 * for (int step = 0; step < 1000; step++) {
 *   Batch b = train.nextBatch(100);   // b.images(): [100, 784], b.labels(): [100, 10]
 * }
 * }</pre>
 */
public final class DataSet {
  private final ImageRows images; // never written
  private final Tensor labels;
  private final Object labelData; // float[] (one-hot) or int[], never written
  private final int numExamples;
  private final int features;
  private final int labelWidth; // classes for one-hot labels, 1 for class indices
  private final long seed;
  private final SplittableRandom random;
  private final int[] order; // the current epoch's permutation of example indices
  private int indexInEpoch;
  private int epochsCompleted;

  /**
   * A data set over {@code images} ({@code [n, features]} FLOAT32) and {@code labels} ({@code [n,
   * classes]} FLOAT32 or {@code [n]} INT32), shuffled with {@code seed}. The tensors' arrays are
   * used as they are (not copied) and must not be modified afterwards.
   */
  public DataSet(Tensor images, Tensor labels, long seed) {
    this(floats(images), labels, seed);
  }

  private static ImageRows floats(Tensor images) {
    if (images.dtype() != DType.FLOAT32 || images.rank() != 2) {
      throw new IllegalArgumentException(
          "images must be [n, features] FLOAT32, got " + images.dtype() + " " + images.shape());
    }
    return new ImageRows.Floats(images);
  }

  /** A data set over {@code images} stored as they are (e.g. pixel bytes), as the public one. */
  DataSet(ImageRows images, Tensor labels, long seed) {
    boolean oneHot = labels.dtype() == DType.FLOAT32 && labels.rank() == 2;
    if (!oneHot && !(labels.dtype() == DType.INT32 && labels.rank() == 1)) {
      throw new IllegalArgumentException(
          "labels must be [n, classes] FLOAT32 or [n] INT32, got "
              + labels.dtype() + " " + labels.shape());
    }
    if (images.numExamples() != labels.shape().dim(0)) {
      throw new IllegalArgumentException(
          "images has " + images.numExamples() + " examples but labels has "
              + labels.shape().dim(0));
    }
    this.images = images;
    this.labels = labels;
    this.labelData = labels.data();
    this.numExamples = images.numExamples();
    this.features = images.features();
    this.labelWidth = oneHot ? labels.shape().dim(1) : 1;
    this.seed = seed;
    this.random = new SplittableRandom(seed);
    this.order = new int[numExamples];
    for (int i = 0; i < numExamples; i++) {
      order[i] = i;
    }
  }

  /** A fresh data set over the same (shared) arrays: epoch 0, shuffled with {@code seed}. */
  public DataSet withSeed(long seed) {
    return new DataSet(images, labels, seed);
  }

  public int numExamples() {
    return numExamples;
  }

  /**
   * All images, {@code [numExamples, features]} FLOAT32, in file order. Do not modify. For data
   * kept as pixel bytes (MNIST's) each call computes a fresh tensor: call it once per evaluation.
   */
  public Tensor images() {
    return images.tensor();
  }

  /** All labels, {@code [numExamples, classes]} FLOAT32 or {@code [numExamples]} INT32. */
  public Tensor labels() {
    return labels;
  }

  /** How many times {@link #nextBatch} has run past the end of the data. */
  public int epochsCompleted() {
    return epochsCompleted;
  }

  /** The next {@code batchSize} examples, shuffling at each epoch start (TF's default). */
  public Batch nextBatch(int batchSize) {
    return nextBatch(batchSize, true);
  }

  /**
   * The next {@code batchSize} examples, as TensorFlow's {@code next_batch(batch_size,
   * shuffle=shuffle)}: without {@code shuffle} the examples come in the current order (file order
   * unless an earlier call shuffled).
   */
  public Batch nextBatch(int batchSize, boolean shuffle) {
    if (batchSize < 1 || batchSize > numExamples) {
      throw new IllegalArgumentException(
          "batch size must be in 1.." + numExamples + " (the number of examples), got " + batchSize);
    }
    float[] x = new float[batchSize * features];
    Object y = oneHot() ? new float[batchSize * labelWidth] : new int[batchSize];
    int start = indexInEpoch;
    if (epochsCompleted == 0 && start == 0 && shuffle) {
      shuffle();
    }
    int filled = 0;
    if (start + batchSize > numExamples) { // the epoch ends inside this batch
      filled = numExamples - start;
      copyRows(start, filled, x, y, 0);
      epochsCompleted++;
      if (shuffle) {
        shuffle();
      }
      start = 0;
    }
    copyRows(start, batchSize - filled, x, y, filled);
    indexInEpoch = start + batchSize - filled;
    Tensor batchLabels =
        oneHot() ? Tensor.of((float[]) y, batchSize, labelWidth) : Tensor.of((int[]) y, batchSize);
    return new Batch(Tensor.of(x, batchSize, features), batchLabels);
  }

  /**
   * Every {@code count}-th example starting at {@code index}, copied into a new data set with this
   * one's seed: worker {@code index} of {@code count} trains on its own disjoint part. Optional:
   * TensorFlow's replica example does not shard; each worker reads the whole training set and
   * relies on its own shuffle order.
   */
  public DataSet shard(int index, int count) {
    if (count < 1 || index < 0 || index >= count) {
      throw new IllegalArgumentException(
          "shard index must be in 0.." + (count - 1) + " for " + count + " shards, got " + index);
    }
    int n = index < numExamples ? (numExamples - index + count - 1) / count : 0;
    int[] rows = new int[n];
    Object y = oneHot() ? new float[n * labelWidth] : new int[n];
    for (int i = 0; i < n; i++) {
      rows[i] = index + i * count;
      System.arraycopy(labelData, rows[i] * labelWidth, y, i * labelWidth, labelWidth);
    }
    Tensor shardLabels = oneHot() ? Tensor.of((float[]) y, n, labelWidth) : Tensor.of((int[]) y, n);
    return new DataSet(images.select(rows), shardLabels, seed);
  }

  @Override
  public String toString() {
    return "DataSet[" + numExamples + " examples, images [" + numExamples + ", " + features
        + "] FLOAT32, labels " + labels.shape() + " " + labels.dtype()
        + ", epoch " + epochsCompleted + "]";
  }

  private boolean oneHot() {
    return labelData instanceof float[];
  }

  /** Copies {@code rows} examples from epoch position {@code from} to batch row {@code to}. */
  private void copyRows(int from, int rows, float[] x, Object y, int to) {
    images.copyRows(order, from, rows, x, to * features);
    for (int i = 0; i < rows; i++) {
      System.arraycopy(labelData, order[from + i] * labelWidth, y, (to + i) * labelWidth, labelWidth);
    }
  }

  /** Fisher-Yates over the index permutation. */
  private void shuffle() {
    for (int i = numExamples - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  }
}
