package dev.psflow.distributed.grpc;

import dev.psflow.autodiff.Gradients;
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
import java.util.List;

/**
 * A well-behaved client of a one-ps, one-worker cluster: a linear model whose weights live on the
 * ps, trained by gradient descent on the worker (the ps applies the gradient it pulls). Close it.
 */
final class TrainingClient implements AutoCloseable {
  private static final Tensor X = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 3, 2);
  private static final Tensor Y = Tensor.vector(5f, 11f, 17f);

  private final Session session;
  private final Output x;
  private final Output y;
  private final Output loss;
  private final Operation train;

  TrainingClient(String target) {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Ops ps = tf.withDevice("/job:ps/task:0");
    Ops worker = tf.withDevice("/job:worker/task:0");
    Variable w = ps.variable("w", ps.constant(new float[] {0, 0}));
    x = worker.withName("x").placeholder(DType.FLOAT32, Shape.of(3, 2));
    y = worker.withName("y").placeholder(DType.FLOAT32, Shape.of(3));
    Output wv = worker.identity(w.value());
    Output predicted = worker.reduceSum(worker.mul(x, wv), 1);
    loss = worker.withName("loss").reduceSum(worker.square(worker.sub(predicted, y)));
    Output grad = Gradients.of(List.of(loss), List.of(wv)).get(0);
    train = ps.resourceApplyGradientDescent(w, ps.constant(0.01f), grad, false);
    session = GrpcSession.overTheWire(g, target, SessionOptions.DEFAULTS);
    session.runner().addTarget(tf.globalVariablesInitializer()).run();
  }

  void trainStep() {
    session.runner().feed(x, X).feed(y, Y).addTarget(train).run();
  }

  float loss() {
    return session.runner().feed(x, X).feed(y, Y).fetch(loss).run().get(0).floatData()[0];
  }

  @Override
  public void close() {
    session.close();
  }
}
