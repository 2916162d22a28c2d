package dev.psflow.ops.math;

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
import dev.psflow.ops.Ops;
import dev.psflow.tensor.BinaryFn;
import dev.psflow.tensor.Broadcast;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Elementwise;
import dev.psflow.tensor.Shape;
import java.util.List;

/**
 * The elementwise binary math ops: arithmetic with NumPy broadcasting (Add, AddV2, Sub, Mul,
 * RealDiv, Maximum, Minimum, Pow, FloorDiv, FloorMod) and the same-shape gradient helpers of unary ops (SigmoidGrad,
 * TanhGrad, RsqrtGrad, SqrtGrad, each {@code f(y, dy)} with y the unary op's output). Kernels are
 * {@link Elementwise#binary}; the gradient of each is in {@link #gradient()}.
 */
public enum BinaryOp implements OpDef {
  ADD("Add", BinaryFn.ADD),
  ADD_V2("AddV2", BinaryFn.ADD),
  SUB("Sub", BinaryFn.SUB),
  MUL("Mul", BinaryFn.MUL),
  REAL_DIV("RealDiv", BinaryFn.DIV),
  MAXIMUM("Maximum", BinaryFn.MAX),
  MINIMUM("Minimum", BinaryFn.MIN),
  POW("Pow", BinaryFn.POW),
  FLOOR_DIV("FloorDiv", BinaryFn.FLOOR_DIV),
  FLOOR_MOD("FloorMod", BinaryFn.FLOOR_MOD),
  SIGMOID_GRAD("SigmoidGrad", BinaryFn.SIGMOID_GRAD),
  TANH_GRAD("TanhGrad", BinaryFn.TANH_GRAD),
  RSQRT_GRAD("RsqrtGrad", BinaryFn.RSQRT_GRAD),
  SQRT_GRAD("SqrtGrad", BinaryFn.SQRT_GRAD);

  private final String type;
  private final BinaryFn fn;

  BinaryOp(String type, BinaryFn fn) {
    this.type = type;
    this.fn = fn;
  }

  @Override
  public String type() {
    return type;
  }

  /** The *Grad helpers take y and dy of one shape, as in TensorFlow; the rest broadcast. */
  private boolean broadcasts() {
    return ordinal() < SIGMOID_GRAD.ordinal();
  }

  @Override
  public List<TensorSpec> outputs(Operation op) {
    DType t = sameType(op.input(0), op.input(1));
    if (!fn.supports(t)) {
      throw new IllegalArgumentException("no " + type + " kernel for type " + t);
    }
    Shape a = op.input(0).shape();
    Shape b = op.input(1).shape();
    if (broadcasts()) {
      return List.of(TensorSpec.of(t, Broadcast.shape(a, b)));
    }
    if (!a.isCompatibleWith(b)) {
      throw new IllegalArgumentException("y and dy must have the same shape, got " + a + " and " + b);
    }
    return List.of(TensorSpec.of(t, a.mergeWith(b)));
  }

  /**
   * Broadcasting can make the output much larger than both inputs ([n, 1] + [1, n] is n²): check
   * its size before the kernel allocates it. Inputs of one shape need no check (and cost none).
   */
  static void checkBroadcast(KernelContext ctx, DType out) {
    Shape a = ctx.input(0).shape();
    Shape b = ctx.input(1).shape();
    if (a.equals(b)) {
      return;
    }
    Shape broadcast;
    try {
      broadcast = Broadcast.shape(a, b);
    } catch (RuntimeException incompatible) {
      return; // the kernel names the mismatch, in TensorFlow's words
    }
    ctx.checkOutputSize(0, out, broadcast);
  }

  /** The dtype both inputs share, in TensorFlow's words when they differ. */
  static DType sameType(Output x, Output y) {
    if (x.dtype() != y.dtype()) {
      throw new IllegalArgumentException("Input 'y' has type " + y.dtype() + " that does not match type "
          + x.dtype() + " of argument 'x'");
    }
    return x.dtype();
  }

  @Override
  public Kernel kernel(Operation op) {
    if (broadcasts()) {
      return ctx -> {
        checkBroadcast(ctx, ctx.input(0).dtype());
        ctx.setOutput(0, Elementwise.binary(fn, ctx.input(0), ctx.input(1)));
      };
    }
    return ctx -> {
      if (!ctx.input(0).shape().equals(ctx.input(1).shape())) {
        throw StatusException.invalidArgument("y and dy must have the same shape, got "
            + ctx.input(0).shape() + " and " + ctx.input(1).shape());
      }
      ctx.setOutput(0, Elementwise.binary(fn, ctx.input(0), ctx.input(1)));
    };
  }

  @Override
  public GradientFn gradient() {
    return switch (this) {
      // d(x ± y) = dy, ±dy, each summed back over the axes it was broadcast along.
      case ADD, ADD_V2 -> (tf, op, g) -> BroadcastGrad.reduceBoth(tf, g.get(0), op.input(0), g.get(0), op.input(1));
      case SUB -> (tf, op, g) -> BroadcastGrad.reduceBoth(tf, g.get(0), op.input(0), tf.neg(g.get(0)), op.input(1));
      // d(x·y) = dy·y, x·dy
      case MUL -> (tf, op, g) -> BroadcastGrad.reduceBoth(tf,
          tf.mul(g.get(0), op.input(1)), op.input(0), tf.mul(op.input(0), g.get(0)), op.input(1));
      // d(x/y) = dy/y, −dy·x/y²
      case REAL_DIV -> (tf, op, g) -> {
        Output x = op.input(0);
        Output y = op.input(1);
        Output gy = tf.mul(g.get(0), tf.div(tf.div(tf.neg(x), y), y));
        return BroadcastGrad.reduceBoth(tf, tf.div(g.get(0), y), x, gy, y);
      };
      // dy goes to the larger (smaller) input; on ties to x, as TensorFlow does.
      case MAXIMUM -> (tf, op, g) -> route(tf, op, g.get(0), tf.greaterEqual(op.input(0), op.input(1)));
      case MINIMUM -> (tf, op, g) -> route(tf, op, g.get(0), tf.lessEqual(op.input(0), op.input(1)));
      case POW -> BinaryOp::powGradient;
      // Piecewise constant: no gradient flows, as in TensorFlow.
      case FLOOR_DIV -> GradientFn.NONE;
      // x mod y = x − ⌊x/y⌋·y: dx = dy, dy' = −dy·⌊x/y⌋ (the floor is flat between its jumps)
      case FLOOR_MOD -> (tf, op, g) -> BroadcastGrad.reduceBoth(tf, g.get(0), op.input(0),
          tf.mul(g.get(0), tf.neg(tf.floorDiv(op.input(0), op.input(1)))), op.input(1));
      case SIGMOID_GRAD, TANH_GRAD, RSQRT_GRAD, SQRT_GRAD -> this::secondOrder;
    };
  }

  /**
   * The gradients of the *Grad helpers f(y, d), so that gradients can be differentiated again.
   * Each is linear in d, so ∂/∂d is the helper itself applied to the incoming gradient g.
   */
  private List<Operand> secondOrder(Ops tf, Operation op, List<Output> grads) {
    Output y = op.input(0);
    Output g = grads.get(0);
    Output dy = switch (this) {
      // SigmoidGrad = d·y(1−y): ∂/∂y = g·d·(1−2y)
      case SIGMOID_GRAD -> tf.mul(tf.mul(g, op.input(1)), tf.sub(tf.constant(y.dtype(), 1), tf.mul(tf.constant(y.dtype(), 2), y)));
      // TanhGrad = d(1−y²): ∂/∂y = −2·g·d·y
      case TANH_GRAD -> tf.mul(tf.mul(g, op.input(1)), tf.mul(tf.constant(y.dtype(), -2), y));
      // RsqrtGrad = −d·y³/2: ∂/∂y = −1.5·g·d·y²
      case RSQRT_GRAD -> tf.mul(tf.mul(g, op.input(1)), tf.mul(tf.constant(y.dtype(), -1.5), tf.square(y)));
      // SqrtGrad = d/(2y): ∂/∂y = −g·d/(2y²) = −g·out/y
      case SQRT_GRAD -> tf.neg(tf.div(tf.mul(g, op.output(0)), y));
      default -> throw new IllegalStateException(type + " is not a gradient helper");
    };
    return List.of(dy, create(tf.scope(), y, g));
  }

  /** dx = dy where {@code xWins}, dy' = dy elsewhere; each reduced to its input's shape. */
  private static List<Operand> route(Ops tf, Operation op, Output dy, Output xWins) {
    Output zeros = tf.zerosLike(dy);
    return BroadcastGrad.reduceBoth(tf, tf.select(xWins, dy, zeros), op.input(0), tf.select(xWins, zeros, dy), op.input(1));
  }

  /** z = x^y: dx = dy·y·x^(y−1); dy' = dy·z·ln x where x > 0, else 0 (as TensorFlow, avoiding NaN). */
  private static List<Operand> powGradient(Ops tf, Operation op, List<Output> g) {
    Output x = op.input(0);
    Output y = op.input(1);
    Output z = op.output(0);
    Output dy = g.get(0);
    Output gx = tf.mul(tf.mul(dy, y), tf.pow(x, tf.sub(y, tf.constant(y.dtype(), 1))));
    Output positive = tf.greater(x, tf.zerosLike(x));
    Output safeX = tf.select(positive, x, tf.onesLike(x));
    Output logX = tf.select(positive, tf.log(safeX), tf.zerosLike(x));
    return BroadcastGrad.reduceBoth(tf, gx, x, tf.mul(tf.mul(dy, z), logX), y);
  }

  public Output create(Scope s, Operand x, Operand y) {
    return s.opBuilder(this).addInput(x).addInput(y).setAttr("T", x.dtype()).build().output(0);
  }
}
