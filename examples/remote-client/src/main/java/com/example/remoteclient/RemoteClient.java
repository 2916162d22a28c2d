package com.example.remoteclient;

import dev.psflow.cluster.TlsConfig;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.graph.Graph;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.ops.state.Variable;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import dev.psflow.train.AdamOptimizer;
import dev.psflow.train.TrainingUtil;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A program of your own that trains on a running psflow cluster. It starts no server: it builds a
 * graph, opens a session on the cluster's worker with {@code grpc://host:port}, and trains. The
 * variables live on the ps task and are updated there (Adam's apply ops follow them); the model's
 * math and its gradients run on the worker task.
 *
 * <p>Given a second argument, the cluster's {@code --tls_dir}, it speaks mutual TLS with the client
 * certificate there ({@code client.crt}: a client may run steps, not reset or register graphs);
 * without one, plaintext, for servers started with {@code --insecure}.
 *
 * <p>The model learns {@code y = 2·x1 − 3·x2 + 1} from 1,000 noisy samples made here, so it needs
 * no data set and finishes in seconds.
 *
 * <pre>
 * java -jar target/remote-client.jar grpc://localhost:2223 certs
 * </pre>
 */
public final class RemoteClient {
  private static final int SAMPLES = 1000;
  private static final int BATCH = 100;
  private static final int STEPS = 500;

  private RemoteClient() {}

  public static void main(String[] args) {
    String target = args.length > 0 ? args[0] : "grpc://localhost:2223";
    SessionOptions options = args.length > 1
        ? SessionOptions.DEFAULTS.withTls(TlsConfig.forClient(Path.of(args[1]))) : SessionOptions.DEFAULTS;

    Graph graph = new Graph();
    Ops tf = Ops.create(graph);
    Ops ps = tf.withDevice("/job:ps/task:0");
    Ops worker = tf.withDevice("/job:worker/task:0");

    // Parameters on the ps task.
    Variable w = ps.variable("w", ps.zeros(Shape.of(2, 1), DType.FLOAT32));
    Variable b = ps.variable("b", ps.zeros(Shape.of(1), DType.FLOAT32));
    Variable globalStep = TrainingUtil.getOrCreateGlobalStep(ps);

    // The model and its loss on the worker task.
    Output x = worker.withName("x").placeholder(DType.FLOAT32, Shape.of(-1, 2));
    Output y = worker.withName("y").placeholder(DType.FLOAT32, Shape.of(-1, 1));
    Output prediction = worker.add(worker.matMul(x, w), b);
    Output loss = worker.withName("loss").reduceMean(worker.square(worker.sub(prediction, y)));
    Operation train = new AdamOptimizer(0.1).minimize(loss, globalStep);
    Operation init = tf.globalVariablesInitializer();

    float[][] data = makeData(new SplittableRandom(7));
    System.out.println("Training on " + target);
    try (Session session = Session.open(graph, target, options)) {
      session.runner().addTarget(init).run();
      for (int step = 1; step <= STEPS; step++) {
        int from = (step - 1) * BATCH % SAMPLES;
        List<Tensor> out = session.runner()
            .feed(x, Tensor.of(slice(data[0], from * 2, BATCH * 2), BATCH, 2))
            .feed(y, Tensor.of(slice(data[1], from, BATCH), BATCH, 1))
            .addTarget(train).fetch(loss).run();
        if (step % 100 == 0) {
          System.out.printf(Locale.ROOT, "step %d: loss = %.5f%n", step, out.get(0).scalarDouble());
        }
      }
      List<Tensor> learned = session.runner().fetch(w).fetch(b).fetch(globalStep).run();
      Tensor wv = learned.get(0);
      System.out.printf(Locale.ROOT, "learned w = [%.3f, %.3f], b = %.3f after %d steps", wv.getDouble(0),
          wv.getDouble(1), learned.get(1).getDouble(0), learned.get(2).scalarLong());
      System.out.println(" (truth: w = [2, -3], b = 1)");
    }
  }

  /** {x, y}: x is SAMPLES x 2 uniform in [-1, 1), y = 2·x1 − 3·x2 + 1 + noise. */
  private static float[][] makeData(SplittableRandom rnd) {
    float[] x = new float[SAMPLES * 2];
    float[] y = new float[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
      x[2 * i] = (float) rnd.nextDouble(-1, 1);
      x[2 * i + 1] = (float) rnd.nextDouble(-1, 1);
      y[i] = 2 * x[2 * i] - 3 * x[2 * i + 1] + 1 + (float) rnd.nextDouble(-0.01, 0.01);
    }
    return new float[][] {x, y};
  }

  private static float[] slice(float[] a, int from, int length) {
    float[] out = new float[length];
    System.arraycopy(a, from, out, 0, length);
    return out;
  }
}
