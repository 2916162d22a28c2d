package dev.psflow.ops.random;

import dev.psflow.exec.Kernel;
import dev.psflow.exec.KernelContext;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.graph.TensorSpec;
import dev.psflow.ops.GradientFn;
import dev.psflow.ops.OpDef;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The stateful random ops: RandomUniform (in [0, 1)), RandomStandardNormal and TruncatedNormal
 * (standard normal, values beyond 2 standard deviations redrawn). Input 0 is the output shape as
 * an int32 or int64 vector; attrs {@code dtype}, {@code seed}, {@code seed2} (see {@link Seeds}).
 *
 * <p>Each kernel instance owns a generator seeded from (seed, seed2), so a new session replays the
 * same sequence, and each run continues it (a second run draws new values), as in TensorFlow.
 */
public enum RandomOp implements OpDef {
  RANDOM_UNIFORM("RandomUniform"),
  RANDOM_STANDARD_NORMAL("RandomStandardNormal"),
  TRUNCATED_NORMAL("TruncatedNormal");

  private final String type;

  RandomOp(String type) {
    this.type = type;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public boolean isStateful() {
    return true;
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    DType dtype = op.attrType("dtype");
    if (!dtype.isFloating()) {
      throw new IllegalArgumentException("dtype must be float or double, got " + dtype);
    }
    Output shape = op.input(0);
    if (!shape.dtype().isInteger()) {
      throw new IllegalArgumentException("shape must be int32 or int64, got " + shape.dtype());
    }
    if (shape.shape().hasKnownRank() && shape.shape().rank() != 1) {
      throw new IllegalArgumentException("shape must be a vector, got shape " + shape.shape());
    }
    return List.of(TensorSpec.of(dtype, staticShape(shape)));
  }

  /** The output shape as far as it is known when the graph is built: exact for a constant shape. */
  private static Shape staticShape(Output shape) {
    if (shape.op().type().equals("Const")) {
      Tensor v = shape.op().attrTensor("value");
      long[] dims = new long[v.size()];
      for (int i = 0; i < dims.length; i++) {
        dims[i] = v.getLong(i);
        if (dims[i] < 0) {
          throw new IllegalArgumentException("shape has a negative dimension: " + v);
        }
      }
      return Shape.of(dims);
    }
    Shape s = shape.shape();
    return s.isFullyDefined() ? Shape.unknownOfRank(s.dim(0)) : Shape.unknown();
  }

  @Override
  public Kernel kernel(Operation op) {
    Seeds seeds = new Seeds(op.attrLong("seed"), op.attrLong("seed2"));
    SplittableRandom root = seeds.isNondeterministic() ? new SplittableRandom() : new SplittableRandom(seeds.key());
    ReentrantLock lock = new ReentrantLock();
    DType dtype = op.attrType("dtype");
    return ctx -> {
      Shape shape = outputShape(ctx.input(0));
      ctx.checkOutputSize(0, dtype, shape);
      // Each run takes its own child generator under the lock, then draws without holding it:
      // concurrent steps never share a generator, and the sequence of runs stays reproducible.
      SplittableRandom rng;
      lock.lock();
      try {
        rng = root.split();
      } finally {
        lock.unlock();
      }
      ctx.setOutput(0, sample(rng, dtype, shape));
    };
  }

  private static Shape outputShape(Tensor shape) {
    if (shape.rank() != 1) {
      throw StatusException.invalidArgument("shape must be a vector, got shape " + shape.shape());
    }
    long[] dims = new long[shape.size()];
    for (int i = 0; i < dims.length; i++) {
      dims[i] = shape.getLong(i);
      if (dims[i] < 0) {
        throw StatusException.invalidArgument("shape has a negative dimension: " + shape);
      }
    }
    return Shape.of(dims);
  }

  private Tensor sample(SplittableRandom rng, DType dtype, Shape shape) {
    int n = Math.toIntExact(shape.numElements());
    return switch (dtype) {
      case FLOAT32 -> {
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
          // A float uniform draws floats directly: a double in [0, 1) rounded to float can reach 1.
          out[i] = this == RANDOM_UNIFORM ? rng.nextFloat() : (float) draw(rng);
        }
        yield Tensor.wrap(DType.FLOAT32, shape, out);
      }
      case FLOAT64 -> {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
          out[i] = draw(rng);
        }
        yield Tensor.wrap(DType.FLOAT64, shape, out);
      }
      default -> throw StatusException.invalidArgument("no kernel for type " + dtype);
    };
  }

  private double draw(SplittableRandom rng) {
    return switch (this) {
      case RANDOM_UNIFORM -> rng.nextDouble();
      case RANDOM_STANDARD_NORMAL -> rng.nextGaussian();
      case TRUNCATED_NORMAL -> {
        double v;
        do {
          v = rng.nextGaussian();
        } while (Math.abs(v) > 2); // redraw beyond two standard deviations, as TF
        yield v;
      }
    };
  }

  @Override
  public GradientFn gradient() {
    return GradientFn.NONE;
  }

  /**
   * Builds the op drawing values of {@code dtype} in the given {@code shape} (an int vector); the
   * seeds are resolved now from the graph seed and {@code opSeed} (see {@link Seeds}).
   */
  public Output create(Scope s, Operand shape, DType dtype, OptionalLong opSeed) {
    Seeds seeds = Seeds.resolve(s.graph(), opSeed);
    return s.opBuilder(this).addInput(shape)
        .setAttr("dtype", dtype).setAttr("T", shape.dtype())
        .setAttr("seed", seeds.seed()).setAttr("seed2", seeds.seed2())
        .build().output(0);
  }
}
