package dev.psflow.data;

import dev.psflow.tensor.Tensor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * MNIST as TensorFlow 1.x's {@code input_data.read_data_sets(data_dir, one_hot)} returns it:
 * {@code train} (55,000 examples), {@code validation} (the first 5,000 images of the training file)
 * and {@code test} (10,000). Images are flattened to 784 floats scaled to [0, 1] by {@code 1/255};
 * labels are one-hot {@code float[10]} rows or {@code int} class indices.
 *
 * <p>{@link #read} looks in {@code dataDir} for {@code train-images-idx3-ubyte.gz} and its three
 * siblings (or the same names without {@code .gz}), downloads a missing one from {@link
 * #DEFAULT_SOURCE_URL} (or the URL in the {@code psflow.mnist.url} system property), and throws a
 * one-line {@link DataException} if that fails or a file is corrupt. A gzipped file is inflated
 * once, into {@code dataDir/.uncompressed/} where the directory takes it ({@link GzipExtractions}),
 * and read from there afterwards. Each split is shuffled with its own random seed, as TensorFlow
 * does when no seed is given; use {@link DataSet#withSeed} for a reproducible order.
 *
 * <p>The record itself is immutable, but its {@link DataSet}s are not thread-safe: one per worker.
 *
 * <pre>{@code
 * MnistDatasets mnist = MnistDatasets.read(MnistDatasets.defaultDataDir(), true);
 * DataSet train = mnist.train().withSeed(1);
 * Batch b = train.nextBatch(100);
 * Tensor testImages = mnist.test().images(); // [10000, 784]
 * }</pre>
 */
public record MnistDatasets(DataSet train, DataSet validation, DataSet test) {
  public static final String TRAIN_IMAGES = "train-images-idx3-ubyte.gz";
  public static final String TRAIN_LABELS = "train-labels-idx1-ubyte.gz";
  public static final String TEST_IMAGES = "t10k-images-idx3-ubyte.gz";
  public static final String TEST_LABELS = "t10k-labels-idx1-ubyte.gz";
  /** Where TensorFlow's {@code read_data_sets} downloaded from (a mirror of LeCun's files). */
  public static final String DEFAULT_SOURCE_URL =
      "https://storage.googleapis.com/cvdf-datasets/mnist/";
  public static final int VALIDATION_SIZE = 5000;
  public static final int NUM_CLASSES = 10;

  /** What TensorFlow multiplies a pixel byte by: {@code 1.0 / 255.0}, rounded to float. */
  private static final float SCALE = (float) (1.0 / 255.0);

  /** Reads (downloading if missing) the MNIST files in {@code dataDir}. */
  public static MnistDatasets read(Path dataDir, boolean oneHot) {
    return read(dataDir, oneHot, MnistFiles.sourceUrl());
  }

  /** As {@link #read(Path, boolean)}, downloading missing files from {@code sourceUrl}. */
  static MnistDatasets read(Path dataDir, boolean oneHot, String sourceUrl) {
    MnistFiles files = new MnistFiles(dataDir.toAbsolutePath().normalize(), sourceUrl);
    Path trainImagesFile = files.locate(TRAIN_IMAGES);
    Path trainLabelsFile = files.locate(TRAIN_LABELS);
    Path testImagesFile = files.locate(TEST_IMAGES);
    Path testLabelsFile = files.locate(TEST_LABELS);

    IdxFile.Images trainImages = IdxFile.readImages(GzipExtractions.readable(trainImagesFile), trainImagesFile);
    byte[] trainLabels = checkedLabels(trainLabelsFile, trainImages, trainImagesFile);
    IdxFile.Images testImages = IdxFile.readImages(GzipExtractions.readable(testImagesFile), testImagesFile);
    byte[] testLabels = checkedLabels(testLabelsFile, testImages, testImagesFile);
    if (testImages.rows() != trainImages.rows() || testImages.cols() != trainImages.cols()) {
      throw new DataException(
          testImagesFile + " has " + testImages.rows() + "x" + testImages.cols() + " images but "
              + trainImagesFile + " has " + trainImages.rows() + "x" + trainImages.cols());
    }
    if (trainImages.count() < VALIDATION_SIZE) {
      throw new DataException(
          trainImagesFile + " has " + trainImages.count() + " images, fewer than the "
              + VALIDATION_SIZE + " set aside for validation");
    }

    SplittableRandom seeds = new SplittableRandom();
    int n = trainImages.count();
    return new MnistDatasets(
        split(trainImages, trainLabels, VALIDATION_SIZE, n, oneHot, seeds.nextLong()),
        split(trainImages, trainLabels, 0, VALIDATION_SIZE, oneHot, seeds.nextLong()),
        split(testImages, testLabels, 0, testImages.count(), oneHot, seeds.nextLong()));
  }

  /**
   * The {@code datasets/mnist} directory in the working directory or the nearest parent that has
   * one (so the CLI finds the repository's copy from anywhere inside the checkout); else {@code
   * ${psflow.home}/datasets/mnist} if the {@code psflow.home} system property is set; else {@code
   * datasets/mnist} under the working directory, where {@link #read} would download to.
   */
  public static Path defaultDataDir() {
    return defaultDataDir(Path.of("").toAbsolutePath(), System.getProperty("psflow.home"));
  }

  static Path defaultDataDir(Path workingDir, String psflowHome) {
    Path relative = Path.of("datasets", "mnist");
    for (Path dir = workingDir; dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve(relative))) {
        return dir.resolve(relative);
      }
    }
    if (psflowHome != null && !psflowHome.isBlank()) {
      return Path.of(psflowHome).resolve(relative);
    }
    return workingDir.resolve(relative);
  }

  private static byte[] checkedLabels(Path file, IdxFile.Images images, Path imagesFile) {
    byte[] labels = IdxFile.readLabels(GzipExtractions.readable(file), file);
    if (labels.length != images.count()) {
      throw new DataException(
          file + " has " + labels.length + " labels but " + imagesFile + " has "
              + images.count() + " images");
    }
    for (int i = 0; i < labels.length; i++) {
      if (labels[i] < 0 || labels[i] >= NUM_CLASSES) { // bytes above 127 read as negative
        throw new DataException(
            file + " has label " + (labels[i] & 0xff) + " at index " + i + ", outside 0.."
                + (NUM_CLASSES - 1));
      }
    }
    return labels;
  }

  /** Examples {@code [from, to)} as a DataSet: pixels scaled to [0, 1], labels one-hot or not. */
  private static DataSet split(
      IdxFile.Images images, byte[] labels, int from, int to, boolean oneHot, long seed) {
    int n = to - from;
    int features = images.rows() * images.cols();
    ImageRows x = new ImageRows.Pixels(images.pixels(), from * features, n, features, SCALE);
    Tensor y;
    if (oneHot) {
      float[] hot = new float[n * NUM_CLASSES];
      for (int i = 0; i < n; i++) {
        hot[i * NUM_CLASSES + labels[from + i]] = 1f;
      }
      y = Tensor.of(hot, n, NUM_CLASSES);
    } else {
      int[] classes = new int[n];
      for (int i = 0; i < n; i++) {
        classes[i] = labels[from + i];
      }
      y = Tensor.of(classes, n);
    }
    return new DataSet(x, y, seed);
  }
}
