package dev.psflow.data;

import dev.psflow.tensor.Tensor;
import dev.psflow.tensor.UnsignedBytes;

/**
 * Where a {@link DataSet} keeps its images: either as the floats it was given, or as the file's
 * pixel bytes, scaled to floats only when a batch copies them out. MNIST's training images are
 * 47 MB as bytes and 188 MB as floats; keeping the bytes is most of a worker's resident memory,
 * and {@code (pixel & 0xff) * scale} at copy time gives bit for bit the floats TensorFlow's
 * {@code input_data} computes up front. Immutable; shared between a data set and its
 * {@link DataSet#withSeed} copies.
 */
sealed interface ImageRows {
  int numExamples();

  int features();

  /** Writes example {@code row}'s features into {@code dst} from {@code offset}. */
  void copyRow(int row, float[] dst, int offset);

  /**
   * Writes examples {@code order[from]}, ..., {@code order[from + count - 1]} into {@code dst} from
   * {@code offset}, one after the other: a batch.
   */
  default void copyRows(int[] order, int from, int count, float[] dst, int offset) {
    for (int i = 0; i < count; i++) {
      copyRow(order[from + i], dst, offset + i * features());
    }
  }

  /** All rows, {@code [numExamples, features]} FLOAT32. */
  Tensor tensor();

  /** The examples {@code rows} (indices into this), in that order, stored as this is. */
  ImageRows select(int[] rows);

  /** Images given as a {@code [n, features]} FLOAT32 tensor, used as they are. */
  record Floats(Tensor images, float[] data, int numExamples, int features) implements ImageRows {
    Floats(Tensor images) {
      this(images, images.floatData(), images.shape().dim(0), images.shape().dim(1));
    }

    @Override
    public void copyRow(int row, float[] dst, int offset) {
      System.arraycopy(data, row * features, dst, offset, features);
    }

    @Override
    public Tensor tensor() {
      return images;
    }

    @Override
    public ImageRows select(int[] rows) {
      float[] x = new float[rows.length * features];
      for (int i = 0; i < rows.length; i++) {
        copyRow(rows[i], x, i * features);
      }
      return new Floats(Tensor.of(x, rows.length, features));
    }
  }

  /**
   * Images as unsigned pixel bytes: example {@code i} is {@code pixels[first + i * features ...]},
   * its float values {@code (pixel & 0xff) * scale}. The array may be larger and is shared, never
   * written.
   */
  record Pixels(byte[] pixels, int first, int numExamples, int features, float scale)
      implements ImageRows {
    public Pixels {
      if (first < 0 || (long) first + (long) numExamples * features > pixels.length) {
        throw new IllegalArgumentException(
            numExamples + " examples of " + features + " pixels from " + first
                + " do not fit in " + pixels.length + " bytes");
      }
    }

    @Override
    public void copyRow(int row, float[] dst, int offset) {
      UnsignedBytes.toScaledFloats(pixels, first + row * features, dst, offset, features, scale);
    }

    @Override
    public void copyRows(int[] order, int from, int count, float[] dst, int offset) {
      for (int i = from; i < from + count; i++) {
        if (order[i] < 0 || order[i] >= numExamples) {
          throw new IndexOutOfBoundsException("example " + order[i] + " of " + numExamples);
        }
      }
      UnsignedBytes.gatherScaledFloats(pixels, first, features, order, from, count, dst, offset, scale);
    }

    /** Computed on each call (a test set's evaluation needs it once); not cached, to stay small. */
    @Override
    public Tensor tensor() {
      float[] x = new float[numExamples * features];
      UnsignedBytes.toScaledFloats(pixels, first, x, 0, numExamples * features, scale); // the rows are contiguous
      return Tensor.of(x, numExamples, features);
    }

    @Override
    public ImageRows select(int[] rows) {
      byte[] b = new byte[rows.length * features];
      for (int i = 0; i < rows.length; i++) {
        System.arraycopy(pixels, first + rows[i] * features, b, i * features, features);
      }
      return new Pixels(b, 0, rows.length, features, scale);
    }
  }
}
