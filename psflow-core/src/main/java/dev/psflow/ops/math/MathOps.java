package dev.psflow.ops.math;

import dev.psflow.graph.Operand;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The math ops of the {@link Ops} facade: elementwise arithmetic with broadcasting, unary
 * functions, comparisons, casts, reductions. Each method builds one op through its declaration.
 *
 * <pre>{@code
 * Output y = tf.add(tf.mul(x, w), b);                 // broadcasting [?,10] * [10] + [10]
 * Output loss = tf.reduceMean(tf.square(tf.sub(y, labels)));
 * Output correct = tf.equal(tf.argMax(y, 1), tf.argMax(labels, 1));
 * }</pre>
 */
public interface MathOps {
  /** Every op type of this family, for the {@link dev.psflow.ops.OpRegistry}. */
  static List<OpDef> definitions() {
    List<OpDef> all = new ArrayList<>();
    all.addAll(Arrays.asList(BinaryOp.values()));
    all.addAll(Arrays.asList(UnaryOp.values()));
    all.addAll(Arrays.asList(CompareOp.values()));
    all.addAll(Arrays.asList(ReduceOp.values()));
    all.addAll(Arrays.asList(ArgOp.values()));
    all.addAll(List.of(Cast.DEF, AddN.DEF, ClipByValue.DEF, Select.DEF, BroadcastGradientArgs.DEF, ReducedShape.DEF));
    // Embedding lookups (issue 8): the boolean ops (FloorDiv and FloorMod are BinaryOp constants).
    all.addAll(Arrays.asList(LogicalOp.values()));
    return List.copyOf(all);
  }

  Scope scope();

  Ops tf();

  /** x + y (TensorFlow's {@code Add}). */
  default Output add(Operand x, Operand y) {
    return BinaryOp.ADD.create(scope(), x, y);
  }

  /** x + y as {@code AddV2} (the same kernel; the name TensorFlow 2 graphs use). */
  default Output addV2(Operand x, Operand y) {
    return BinaryOp.ADD_V2.create(scope(), x, y);
  }

  default Output sub(Operand x, Operand y) {
    return BinaryOp.SUB.create(scope(), x, y);
  }

  default Output mul(Operand x, Operand y) {
    return BinaryOp.MUL.create(scope(), x, y);
  }

  /** x / y for floating types ({@code RealDiv}). */
  default Output div(Operand x, Operand y) {
    return BinaryOp.REAL_DIV.create(scope(), x, y);
  }

  default Output maximum(Operand x, Operand y) {
    return BinaryOp.MAXIMUM.create(scope(), x, y);
  }

  default Output minimum(Operand x, Operand y) {
    return BinaryOp.MINIMUM.create(scope(), x, y);
  }

  default Output pow(Operand x, Operand y) {
    return BinaryOp.POW.create(scope(), x, y);
  }

  default Output neg(Operand x) {
    return UnaryOp.NEG.create(scope(), x);
  }

  default Output square(Operand x) {
    return UnaryOp.SQUARE.create(scope(), x);
  }

  default Output sqrt(Operand x) {
    return UnaryOp.SQRT.create(scope(), x);
  }

  default Output rsqrt(Operand x) {
    return UnaryOp.RSQRT.create(scope(), x);
  }

  default Output exp(Operand x) {
    return UnaryOp.EXP.create(scope(), x);
  }

  default Output log(Operand x) {
    return UnaryOp.LOG.create(scope(), x);
  }

  default Output abs(Operand x) {
    return UnaryOp.ABS.create(scope(), x);
  }

  default Output sign(Operand x) {
    return UnaryOp.SIGN.create(scope(), x);
  }

  default Output sigmoid(Operand x) {
    return UnaryOp.SIGMOID.create(scope(), x);
  }

  default Output tanh(Operand x) {
    return UnaryOp.TANH.create(scope(), x);
  }

  default Output equal(Operand x, Operand y) {
    return CompareOp.EQUAL.create(scope(), x, y);
  }

  default Output notEqual(Operand x, Operand y) {
    return CompareOp.NOT_EQUAL.create(scope(), x, y);
  }

  default Output less(Operand x, Operand y) {
    return CompareOp.LESS.create(scope(), x, y);
  }

  default Output lessEqual(Operand x, Operand y) {
    return CompareOp.LESS_EQUAL.create(scope(), x, y);
  }

  default Output greater(Operand x, Operand y) {
    return CompareOp.GREATER.create(scope(), x, y);
  }

  default Output greaterEqual(Operand x, Operand y) {
    return CompareOp.GREATER_EQUAL.create(scope(), x, y);
  }

  default Output cast(Operand x, DType to) {
    return Cast.create(scope(), x, to);
  }

  /** The sum of tensors of one type and shape. */
  default Output addN(List<? extends Operand> inputs) {
    return AddN.create(scope(), inputs);
  }

  default Output addN(Operand... inputs) {
    return AddN.create(scope(), Arrays.asList(inputs));
  }

  default Output clipByValue(Operand t, Operand min, Operand max) {
    return ClipByValue.create(scope(), t, min, max);
  }

  /** {@code condition ? t : e} elementwise, or by rows for a vector condition (TF1's {@code tf.where}). */
  default Output select(Operand condition, Operand t, Operand e) {
    return Select.create(scope(), condition, t, e);
  }

  /** Σ over {@code axes}, or over every axis when none are given. */
  default Output reduceSum(Operand x, int... axes) {
    return reduceSum(x, false, axes);
  }

  default Output reduceSum(Operand x, boolean keepDims, int... axes) {
    return ReduceOp.SUM.create(scope(), x, axes(x, axes), keepDims);
  }

  /** Σ over the axes held by the int tensor {@code axes} (empty: none). */
  default Output reduceSum(Operand x, Operand axes, boolean keepDims) {
    return ReduceOp.SUM.create(scope(), x, axes, keepDims);
  }

  default Output reduceMean(Operand x, int... axes) {
    return reduceMean(x, false, axes);
  }

  default Output reduceMean(Operand x, boolean keepDims, int... axes) {
    return ReduceOp.MEAN.create(scope(), x, axes(x, axes), keepDims);
  }

  default Output reduceMean(Operand x, Operand axes, boolean keepDims) {
    return ReduceOp.MEAN.create(scope(), x, axes, keepDims);
  }

  default Output reduceMax(Operand x, int... axes) {
    return reduceMax(x, false, axes);
  }

  default Output reduceMax(Operand x, boolean keepDims, int... axes) {
    return ReduceOp.MAX.create(scope(), x, axes(x, axes), keepDims);
  }

  default Output reduceMax(Operand x, Operand axes, boolean keepDims) {
    return ReduceOp.MAX.create(scope(), x, axes, keepDims);
  }

  default Output reduceMin(Operand x, int... axes) {
    return reduceMin(x, false, axes);
  }

  default Output reduceMin(Operand x, boolean keepDims, int... axes) {
    return ReduceOp.MIN.create(scope(), x, axes(x, axes), keepDims);
  }

  default Output reduceMin(Operand x, Operand axes, boolean keepDims) {
    return ReduceOp.MIN.create(scope(), x, axes, keepDims);
  }

  /** The axes as a constant, or [0, rank) when none are given (computed at run time if the rank is unknown). */
  private Output axes(Operand x, int[] axes) {
    if (axes.length > 0) {
      return tf().constant(axes);
    }
    int rank = x.shape().rank();
    if (rank >= 0) {
      int[] all = new int[rank];
      Arrays.setAll(all, i -> i);
      return tf().constant(all);
    }
    Ops helpers = tf();
    return helpers.range(helpers.constant(0), helpers.rank(x), helpers.constant(1));
  }

  /** The index of the largest element along {@code axis}, as INT64. */
  default Output argMax(Operand x, int axis) {
    return ArgOp.ARG_MAX.create(scope(), x, tf().constant(axis), DType.INT64);
  }

  default Output argMax(Operand x, Operand axis, DType outputType) {
    return ArgOp.ARG_MAX.create(scope(), x, axis, outputType);
  }

  default Output argMin(Operand x, int axis) {
    return ArgOp.ARG_MIN.create(scope(), x, tf().constant(axis), DType.INT64);
  }

  default Output argMin(Operand x, Operand axis, DType outputType) {
    return ArgOp.ARG_MIN.create(scope(), x, axis, outputType);
  }

  // ---- Embedding lookups (issue 8): floor division and boolean logic ----

  /** ⌊x / y⌋ elementwise, with broadcasting ({@code FloorDiv}); integer division by zero fails. */
  default Output floorDiv(Operand x, Operand y) {
    return BinaryOp.FLOOR_DIV.create(scope(), x, y);
  }

  /** x − ⌊x / y⌋·y elementwise: the remainder takes y's sign, as Python's % ({@code FloorMod}). */
  default Output floorMod(Operand x, Operand y) {
    return BinaryOp.FLOOR_MOD.create(scope(), x, y);
  }

  default Output logicalAnd(Operand x, Operand y) {
    return LogicalOp.LOGICAL_AND.create(scope(), x, y);
  }

  default Output logicalOr(Operand x, Operand y) {
    return LogicalOp.LOGICAL_OR.create(scope(), x, y);
  }

  default Output logicalNot(Operand x) {
    return LogicalOp.LOGICAL_NOT.create(scope(), x);
  }
}
