package dev.psflow.ops.random;

import dev.psflow.graph.Operand;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import dev.psflow.ops.math.BinaryOp;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.util.List;
import java.util.OptionalLong;

/**
 * The random ops of the {@link Ops} facade. Seeds follow TensorFlow: set a graph seed with
 * {@code graph.setSeed(..)} for a reproducible program, pass an op seed to fix one op's draws.
 *
 * <pre>{@code
 * graph.setSeed(42);
 * Output w = tf.truncatedNormal(Shape.of(784, 100), DType.FLOAT32, 1.0f / 28);
 * Output noise = tf.randomUniform(Shape.of(100), DType.FLOAT32, -1, 1);
 * }</pre>
 */
public interface RandomOps {
  /** Every op type of this family, for the {@link dev.psflow.ops.OpRegistry}. */
  static List<OpDef> definitions() {
    return List.of(RandomOp.RANDOM_UNIFORM, RandomOp.RANDOM_STANDARD_NORMAL, RandomOp.TRUNCATED_NORMAL);
  }

  Scope scope();

  Ops tf();

  /** Uniform draws in [0, 1) of the given shape (an int32 or int64 vector). */
  default Output randomUniform(Operand shape, DType dtype) {
    return RandomOp.RANDOM_UNIFORM.create(scope(), shape, dtype, OptionalLong.empty());
  }

  default Output randomUniform(Operand shape, DType dtype, long seed) {
    return RandomOp.RANDOM_UNIFORM.create(scope(), shape, dtype, OptionalLong.of(seed));
  }

  /** Standard normal draws of the given shape. */
  default Output randomStandardNormal(Operand shape, DType dtype) {
    return RandomOp.RANDOM_STANDARD_NORMAL.create(scope(), shape, dtype, OptionalLong.empty());
  }

  default Output randomStandardNormal(Operand shape, DType dtype, long seed) {
    return RandomOp.RANDOM_STANDARD_NORMAL.create(scope(), shape, dtype, OptionalLong.of(seed));
  }

  /** Standard normal draws of the given shape, each within 2 standard deviations. */
  default Output truncatedNormal(Operand shape, DType dtype) {
    return RandomOp.TRUNCATED_NORMAL.create(scope(), shape, dtype, OptionalLong.empty());
  }

  default Output truncatedNormal(Operand shape, DType dtype, long seed) {
    return RandomOp.TRUNCATED_NORMAL.create(scope(), shape, dtype, OptionalLong.of(seed));
  }

  /**
   * {@code tf.truncated_normal}: normal draws of mean 0 and the given stddev, each within two
   * standard deviations; the usual weight initializer. Seeded by the graph seed.
   */
  default Output truncatedNormal(Shape shape, DType dtype, float stddev) {
    return scaled(RandomOp.TRUNCATED_NORMAL, "truncated_normal", shape, dtype, OptionalLong.empty(), stddev, 0);
  }

  default Output truncatedNormal(Shape shape, DType dtype, float stddev, long seed) {
    return scaled(RandomOp.TRUNCATED_NORMAL, "truncated_normal", shape, dtype, OptionalLong.of(seed), stddev, 0);
  }

  default Output truncatedNormal(long[] shape, DType dtype, float stddev) {
    return truncatedNormal(Shape.of(shape), dtype, stddev);
  }

  default Output truncatedNormal(long[] shape, DType dtype, float stddev, long seed) {
    return truncatedNormal(Shape.of(shape), dtype, stddev, seed);
  }

  /** {@code tf.random_normal}: normal draws of the given mean and stddev. */
  default Output randomNormal(Shape shape, DType dtype, float mean, float stddev) {
    return scaled(RandomOp.RANDOM_STANDARD_NORMAL, "random_normal", shape, dtype, OptionalLong.empty(), stddev, mean);
  }

  default Output randomNormal(Shape shape, DType dtype, float mean, float stddev, long seed) {
    return scaled(RandomOp.RANDOM_STANDARD_NORMAL, "random_normal", shape, dtype, OptionalLong.of(seed), stddev, mean);
  }

  /** {@code tf.random_uniform}: uniform draws in [min, max). */
  default Output randomUniform(Shape shape, DType dtype, float min, float max) {
    return scaled(RandomOp.RANDOM_UNIFORM, "random_uniform", shape, dtype, OptionalLong.empty(), max - min, min);
  }

  default Output randomUniform(Shape shape, DType dtype, float min, float max, long seed) {
    return scaled(RandomOp.RANDOM_UNIFORM, "random_uniform", shape, dtype, OptionalLong.of(seed), max - min, min);
  }

  /**
   * {@code draw · scale + shift} under a sub-scope named as TensorFlow names it, or under the name
   * given by {@code withName} (the sum then takes that name); the shape is a constant, so the
   * result's static shape is exact.
   */
  private Output scaled(RandomOp op, String name, Shape shape, DType dtype, OptionalLong seed,
      float scale, float shift) {
    if (!shape.isFullyDefined()) {
      throw new IllegalArgumentException("the shape of random values must be fully defined, got " + shape);
    }
    Scope composite = scope().forComposite(name);
    Ops parts = Ops.create(composite.helperScope());
    Output draw = op.create(parts.scope(), parts.withName("shape").constant(shape.toIntArray()), dtype, seed);
    Output mul = parts.mul(draw, parts.constant(dtype, scale));
    return BinaryOp.ADD.create(composite, mul, parts.constant(dtype, shift));
  }
}
