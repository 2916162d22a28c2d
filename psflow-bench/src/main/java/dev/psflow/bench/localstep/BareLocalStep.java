package dev.psflow.bench.localstep;

import dev.psflow.data.Batch;
import dev.psflow.data.DataException;
import dev.psflow.data.DataSet;
import dev.psflow.data.MnistDatasets;
import dev.psflow.tensor.Gemm;
import dev.psflow.tensor.NativeBlas;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The floor under a local training step: the replica example's model (784 → hidden units, ReLU →
 * 10, softmax, −Σ y_·log(clip(y, 1e-10, 1)), Adam) trained by straight-line Java on one thread,
 * with no graph, executor, tensors or sessions: each step takes psflow's batch ({@link
 * DataSet#nextBatch}), sends its five matrix products to psflow's GEMM ({@link Gemm}: OpenBLAS
 * where it loads, as psflow's kernels do) and does the rest in plain loops over arrays it reuses
 * from step to step. What it costs a step is what psflow's local step would cost with all of its
 * own overhead gone, on the same JVM and the same products.
 *
 * <p>{@code --blas_threads=2} lets OpenBLAS split each product over two threads of its own.
 *
 * <p>Prints, as {@code psflow mnist} does, {@code training steps/sec = R} (the first 50 steps
 * excluded) and the test accuracy after training, which shows it trains the model and not
 * something cheaper.
 *
 * <pre>{@code
 * java -cp psflow-bench.jar dev.psflow.bench.localstep.BareLocalStep --train_steps=2000 --data_dir=datasets/mnist
 * }</pre>
 */
public final class BareLocalStep {
  static final int FEATURES = 784;
  static final int CLASSES = 10;
  static final int WARMUP_STEPS = 50;
  static final float BETA1 = 0.9f;
  static final float BETA2 = 0.999f;
  static final float EPSILON = 1e-8f;

  private final int batch;
  private final int hidden;
  private final float learningRate;
  // Variables and Adam's slots.
  final float[] w1;
  final float[] b1;
  final float[] w2;
  final float[] b2;
  private final float[][] m;
  private final float[][] v;
  private long globalStep;
  // Activations and gradients, reused from step to step.
  private final float[] h;
  private final float[] y;
  private final float[] dLogits;
  private final float[] dh;
  private final float[] dw1;
  private final float[] db1;
  private final float[] dw2;
  private final float[] db2;

  BareLocalStep(int batch, int hidden, float learningRate, long seed) {
    this.batch = batch;
    this.hidden = hidden;
    this.learningRate = learningRate;
    SplittableRandom random = new SplittableRandom(seed);
    w1 = truncatedNormal(random, FEATURES * hidden, 1.0 / Math.sqrt(FEATURES));
    b1 = new float[hidden];
    w2 = truncatedNormal(random, hidden * CLASSES, 1.0 / Math.sqrt(hidden));
    b2 = new float[CLASSES];
    float[][] vars = {w1, b1, w2, b2};
    m = new float[vars.length][];
    v = new float[vars.length][];
    for (int i = 0; i < vars.length; i++) {
      m[i] = new float[vars[i].length];
      v[i] = new float[vars[i].length];
    }
    h = new float[batch * hidden];
    y = new float[batch * CLASSES];
    dLogits = new float[batch * CLASSES];
    dh = new float[batch * hidden];
    dw1 = new float[FEATURES * hidden];
    db1 = new float[hidden];
    dw2 = new float[hidden * CLASSES];
    db2 = new float[CLASSES];
  }

  private static float[] truncatedNormal(SplittableRandom random, int n, double stddev) {
    float[] w = new float[n];
    for (int i = 0; i < n; i++) {
      double g;
      do {
        g = gaussian(random);
      } while (Math.abs(g) > 2);
      w[i] = (float) (g * stddev);
    }
    return w;
  }

  private static double gaussian(SplittableRandom random) {
    double u = 1 - random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble());
  }

  /** One training step on {@code x} ([batch, 784]) and one-hot {@code labels}; returns the loss. */
  double step(float[] x, float[] labels) {
    double loss = forward(x, labels, batch);
    backward(x, labels);
    globalStep++;
    adam(0, w1, dw1);
    adam(1, b1, db1);
    adam(2, w2, dw2);
    adam(3, b2, db2);
    return loss;
  }

  /** h = relu(x·W1 + b1), y = softmax(h·W2 + b2); returns the cross-entropy summed over the rows. */
  private double forward(float[] x, float[] labels, int rows) {
    Gemm.sgemm(false, false, rows, hidden, FEATURES, x, 0, FEATURES, w1, 0, hidden, h, 0, hidden, false);
    for (int r = 0; r < rows; r++) {
      for (int j = 0; j < hidden; j++) {
        int k = r * hidden + j;
        h[k] = Math.max(h[k] + b1[j], 0f);
      }
    }
    Gemm.sgemm(false, false, rows, CLASSES, hidden, h, 0, hidden, w2, 0, CLASSES, y, 0, CLASSES, false);
    double loss = 0;
    for (int r = 0; r < rows; r++) {
      int o = r * CLASSES;
      float max = Float.NEGATIVE_INFINITY;
      for (int j = 0; j < CLASSES; j++) {
        y[o + j] += b2[j];
        max = Math.max(max, y[o + j]);
      }
      float sum = 0;
      for (int j = 0; j < CLASSES; j++) {
        y[o + j] = (float) Math.exp(y[o + j] - max);
        sum += y[o + j];
      }
      for (int j = 0; j < CLASSES; j++) {
        y[o + j] /= sum;
        loss -= labels[o + j] * Math.log(Math.min(Math.max(y[o + j], 1e-10f), 1f));
      }
    }
    return loss;
  }

  /** The gradients of the loss, as TensorFlow's graph computes them (the clip passes where y is in range). */
  private void backward(float[] x, float[] labels) {
    for (int r = 0; r < batch; r++) {
      int o = r * CLASSES;
      float dot = 0;
      for (int j = 0; j < CLASSES; j++) {
        float p = y[o + j];
        float dy = p >= 1e-10f && p <= 1f ? -labels[o + j] / Math.max(p, 1e-10f) : 0f;
        dLogits[o + j] = dy;
        dot += dy * p;
      }
      for (int j = 0; j < CLASSES; j++) {
        dLogits[o + j] = (dLogits[o + j] - dot) * y[o + j];
      }
    }
    Gemm.sgemm(true, false, hidden, CLASSES, batch, h, 0, hidden, dLogits, 0, CLASSES, dw2, 0, CLASSES, false);
    columnSums(dLogits, batch, CLASSES, db2);
    Gemm.sgemm(false, true, batch, hidden, CLASSES, dLogits, 0, CLASSES, w2, 0, CLASSES, dh, 0, hidden, false);
    for (int k = 0; k < dh.length; k++) {
      dh[k] = h[k] > 0 ? dh[k] : 0f;
    }
    Gemm.sgemm(true, false, FEATURES, hidden, batch, x, 0, FEATURES, dh, 0, hidden, dw1, 0, hidden, false);
    columnSums(dh, batch, hidden, db1);
  }

  private static void columnSums(float[] a, int rows, int cols, float[] out) {
    java.util.Arrays.fill(out, 0f);
    for (int r = 0; r < rows; r++) {
      for (int j = 0; j < cols; j++) {
        out[j] += a[r * cols + j];
      }
    }
  }

  /** TensorFlow's ApplyAdam on variable {@code i}. */
  private void adam(int i, float[] w, float[] g) {
    float lrT = (float) (learningRate * Math.sqrt(1 - Math.pow(BETA2, globalStep)) / (1 - Math.pow(BETA1, globalStep)));
    float[] mi = m[i];
    float[] vi = v[i];
    for (int k = 0; k < w.length; k++) {
      float gk = g[k];
      float mk = mi[k] + (gk - mi[k]) * (1 - BETA1);
      float vk = vi[k] + (gk * gk - vi[k]) * (1 - BETA2);
      mi[k] = mk;
      vi[k] = vk;
      w[k] -= lrT * mk / ((float) Math.sqrt(vk) + EPSILON);
    }
  }

  /** The fraction of {@code set}'s examples whose largest output is their label, a batch at a time. */
  double accuracy(DataSet set) {
    float[] x = set.images().floatData();
    float[] labels = set.labels().floatData();
    int right = 0;
    for (int from = 0; from < set.numExamples(); from += batch) {
      int rows = Math.min(batch, set.numExamples() - from);
      float[] xs = java.util.Arrays.copyOfRange(x, from * FEATURES, (from + rows) * FEATURES);
      float[] ls = java.util.Arrays.copyOfRange(labels, from * CLASSES, (from + rows) * CLASSES);
      forward(xs, ls, rows);
      for (int r = 0; r < rows; r++) {
        int best = 0;
        for (int j = 1; j < CLASSES; j++) {
          best = y[r * CLASSES + j] > y[r * CLASSES + best] ? j : best;
        }
        right += ls[r * CLASSES + best] == 1f ? 1 : 0;
      }
    }
    return (double) right / set.numExamples();
  }

  public static void main(String[] args) {
    int steps = 2000;
    int batch = 100;
    int hidden = 100;
    float learningRate = 0.01f;
    Path dataDir = Path.of("datasets/mnist");
    int blasThreads = 1;
    for (String a : args) {
      String value = a.substring(a.indexOf('=') + 1);
      try {
        if (a.startsWith("--train_steps=")) {
          steps = Integer.parseInt(value);
        } else if (a.startsWith("--batch_size=")) {
          batch = Integer.parseInt(value);
        } else if (a.startsWith("--hidden_units=")) {
          hidden = Integer.parseInt(value);
        } else if (a.startsWith("--learning_rate=")) {
          learningRate = Float.parseFloat(value);
        } else if (a.startsWith("--blas_threads=")) {
          blasThreads = Integer.parseInt(value);
        } else if (a.startsWith("--data_dir=")) {
          dataDir = Path.of(value);
        } else {
          System.err.println("bare-local-step: unknown flag " + a
              + " (takes --train_steps --batch_size --hidden_units --learning_rate --data_dir --blas_threads)");
          System.exit(2);
        }
      } catch (NumberFormatException e) {
        System.err.println("bare-local-step: " + a + " is not a number");
        System.exit(2);
      }
    }
    if (steps <= WARMUP_STEPS || batch < 1 || hidden < 1 || blasThreads < 1) {
      System.err.println("bare-local-step: --train_steps must be over " + WARMUP_STEPS
          + ", --batch_size, --hidden_units and --blas_threads positive");
      System.exit(2);
    }
    MnistDatasets data;
    try {
      data = MnistDatasets.read(dataDir, true);
    } catch (DataException e) {
      System.err.println("bare-local-step: --data_dir=" + dataDir + ": " + e.getMessage());
      System.exit(1);
      return;
    }
    DataSet train = data.train().withSeed(1);
    BareLocalStep model = new BareLocalStep(batch, hidden, learningRate, 1);
    boolean openBlas = NativeBlas.chosen() && NativeBlas.available();
    if (openBlas && blasThreads > 1) {
      // psflow loads OpenBLAS with one thread; this lets its own threads split each product.
      org.bytedeco.openblas.presets.openblas_nolapack.blas_set_num_threads(blasThreads);
    }
    System.out.println("products on " + (openBlas ? "OpenBLAS, " + blasThreads + " thread(s)" : "psflow's own kernels"));
    long timedFrom = 0;
    double loss = 0;
    for (int step = 1; step <= steps; step++) {
      if (step == WARMUP_STEPS + 1) {
        timedFrom = System.nanoTime();
      }
      Batch b = train.nextBatch(batch);
      loss = model.step(b.images().floatData(), b.labels().floatData());
    }
    double stepsPerSec = (steps - WARMUP_STEPS) / ((System.nanoTime() - timedFrom) / 1e9);
    System.out.printf(Locale.ROOT, "step %d loss %.4f%n", steps, loss);
    System.out.printf(Locale.ROOT, "test accuracy = %.4f%n", model.accuracy(data.test()));
    System.out.printf(Locale.ROOT, "training steps/sec = %.1f%n", stepsPerSec);
  }
}
