package dev.psflow.examples;

import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;

/**
 * The model of TensorFlow's distributed MNIST replica example, op for op: x[?,784] →
 * relu(x·hid_w + hid_b) → softmax(hid·sm_w + sm_b), with hid_w ~ truncated normal (stddev 1/28),
 * sm_w ~ truncated normal (stddev 1/√hidden_units), zero biases, and the loss
 * −Σ y_·log(clip(y, 1e-10, 1)) summed over the batch. The variables (and global_step) are built
 * through {@code tf}, so a replica device setter on it sends them to the ps tasks.
 *
 * <pre>{@code
 * MnistModel m = MnistModel.build(tf.withDeviceFunction(setter), 100);
 * Operation train = new AdamOptimizer(0.01).minimize(m.crossEntropy(), m.globalStep());
 * }</pre>
 */
public record MnistModel(Output x, Output labels, Output probabilities, Output crossEntropy, Output accuracy,
    Variable globalStep, Variable hidW, Variable hidB, Variable smW, Variable smB) {
  public static final int IMAGE_PIXELS = 28;
  public static final int NUM_CLASSES = 10;

  public static MnistModel build(Ops tf, int hiddenUnits) {
    return tower(tf, Variables.create(tf, hiddenUnits));
  }

  /**
   * The model's variables and global_step, without a forward pass: the state every replica shares.
   * Built through {@code tf}, so a replica device setter on it sends them to the ps tasks.
   */
  public record Variables(Variable globalStep, Variable hidW, Variable hidB, Variable smW, Variable smB) {
    public static Variables create(Ops tf, int hiddenUnits) {
      if (hiddenUnits <= 0) {
        throw new IllegalArgumentException("--hidden_units must be positive, got " + hiddenUnits);
      }
      int pixels = IMAGE_PIXELS * IMAGE_PIXELS;
      Variable globalStep = tf.variable("global_step", tf.constant(0L), false);
      Variable hidW = tf.variable("hid_w", normal(tf, pixels, hiddenUnits, 1.0f / IMAGE_PIXELS));
      Variable hidB = tf.variable("hid_b", tf.zeros(Shape.of(hiddenUnits), DType.FLOAT32));
      Variable smW = tf.variable("sm_w", normal(tf, hiddenUnits, NUM_CLASSES, (float) (1.0 / Math.sqrt(hiddenUnits))));
      Variable smB = tf.variable("sm_b", tf.zeros(Shape.of(NUM_CLASSES), DType.FLOAT32));
      return new Variables(globalStep, hidW, hidB, smW, smB);
    }
  }

  /**
   * One replica of the forward pass over shared variables: its own {@code x} and {@code y_}
   * placeholders, loss and accuracy, built through {@code tf} (in-graph replication builds one per
   * worker, each under its worker's device and name scope).
   */
  public static MnistModel tower(Ops tf, Variables v) {
    int pixels = IMAGE_PIXELS * IMAGE_PIXELS;
    Output x = tf.withName("x").placeholder(DType.FLOAT32, Shape.of(-1, pixels));
    Output labels = tf.withName("y_").placeholder(DType.FLOAT32, Shape.of(-1, NUM_CLASSES));
    Output hid = tf.relu(tf.xwPlusB(x, v.hidW(), v.hidB()));
    Output y = tf.softmax(tf.xwPlusB(hid, v.smW(), v.smB()));
    Output clipped = tf.clipByValue(y, tf.constant(1e-10f), tf.constant(1.0f));
    Output crossEntropy = tf.withName("cross_entropy").neg(tf.reduceSum(tf.mul(labels, tf.log(clipped))));
    Output correct = tf.equal(tf.argMax(y, 1), tf.argMax(labels, 1));
    Output accuracy = tf.withName("accuracy").reduceMean(tf.cast(correct, DType.FLOAT32));
    return new MnistModel(x, labels, y, crossEntropy, accuracy, v.globalStep(), v.hidW(), v.hidB(), v.smW(), v.smB());
  }

  private static Output normal(Ops tf, int rows, int cols, float stddev) {
    Output shape = tf.constant(new int[] {rows, cols});
    return tf.mul(tf.truncatedNormal(shape, DType.FLOAT32), tf.constant(stddev));
  }
}
