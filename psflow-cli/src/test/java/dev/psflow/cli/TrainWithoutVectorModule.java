package dev.psflow.cli;

import dev.psflow.exec.Session;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import dev.psflow.tensor.VectorSupport;
import dev.psflow.train.AdagradOptimizer;
import dev.psflow.train.AdamOptimizer;
import dev.psflow.train.MomentumOptimizer;
import dev.psflow.train.Optimizer;
import dev.psflow.train.RMSPropOptimizer;
import dev.psflow.train.TrainingUtil;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A user's program, run by {@link WithoutVectorModuleTest} in a JVM started without
 * {@code --add-modules jdk.incubator.vector}: fits a 128 x 16 linear map with each optimizer that
 * has a fused float kernel, ten steps each, and prints one {@code <optimizer>: loss A -> B} line per
 * optimizer. The products (64 x 128 by 128 x 16 and their gradients) are large enough for the
 * blocked GEMM path.
 */
public final class TrainWithoutVectorModule {
  private TrainWithoutVectorModule() {}

  public static void main(String[] args) {
    System.out.println("vector api available = " + VectorSupport.AVAILABLE);
    List<Optimizer> optimizers = List.of(new AdamOptimizer(0.05), new MomentumOptimizer(0.01, 0.9, true),
        new RMSPropOptimizer(0.01, 0.9, 0.5, 1e-10), new AdagradOptimizer(0.5));
    for (Optimizer opt : optimizers) {
      double[] loss = train(opt, 10);
      System.out.printf(Locale.ROOT, "%s: loss %.6f -> %.6f%n", opt.name(), loss[0], loss[1]);
    }
  }

  /** The loss before and after {@code steps} steps of {@code opt}. */
  private static double[] train(Optimizer opt, int steps) {
    SplittableRandom rnd = new SplittableRandom(42);
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output x = tf.constant(random(rnd, 64, 128));
    Output y = tf.matMul(x, tf.constant(random(rnd, 128, 16)));
    Variable w = tf.variable("w", tf.zeros(Shape.of(128, 16), DType.FLOAT32));
    Output loss = tf.reduceMean(tf.square(tf.sub(tf.matMul(x, w), y)));
    Operation train = opt.minimize(loss, TrainingUtil.getOrCreateGlobalStep(tf));
    try (Session s = Session.open(g)) {
      s.runner().addTarget(tf.globalVariablesInitializer()).run();
      double before = s.runner().fetch(loss).run().get(0).scalarDouble();
      for (int i = 0; i < steps; i++) {
        s.runner().addTarget(train).run();
      }
      return new double[] {before, s.runner().fetch(loss).run().get(0).scalarDouble()};
    }
  }

  private static Tensor random(SplittableRandom rnd, int rows, int cols) {
    float[] v = new float[rows * cols];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) rnd.nextDouble(-1, 1);
    }
    return Tensor.of(v, rows, cols);
  }
}
