package dev.psflow.ops.array;

import dev.psflow.exec.Device;
import dev.psflow.exec.KernelContext;
import dev.psflow.exec.StatusException;
import dev.psflow.exec.StepContext;
import dev.psflow.graph.Operand;
import dev.psflow.graph.Operation;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.Set;

/**
 * What can be known of a graph tensor's value while the graph is built (TensorFlow's
 * {@code constant_value} and {@code constant_value_as_shape}), so that shape functions can use
 * the value of an input such as Reshape's {@code shape} or Sum's {@code reduction_indices}.
 * Folds Const, the shape queries of statically shaped tensors, and small integer shape
 * computations whose inputs fold (by running their kernels). Stateless and thread-safe.
 *
 * <pre>{@code
 * Tensor axes = StaticValue.of(op.input(1));          // null when only known at run time
 * Shape target = StaticValue.asShape(op.input(1));    // [?,28,28] from Shape(x) or a Const
 * }</pre>
 */
public final class StaticValue {
  /** Ops cheap and pure enough to evaluate while building; others are never folded. */
  private static final Set<String> FOLDABLE = Set.of(
      "Identity", "Cast", "Reshape", "ExpandDims", "Squeeze", "GatherV2", "ConcatV2", "Slice",
      "Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "Neg", "Range", "Fill", "InvertPermutation",
      "ConcatOffset", "BroadcastGradientArgs", "ReducedShape", "Transpose",
      "StridedSlice", "FloorDiv", "FloorMod");
  /** Larger values are not folded: shape functions only need small ones. */
  private static final int MAX_ELEMENTS = 1 << 12;

  private StaticValue() {}

  /** The value of {@code o} if it is known while building the graph, else null. */
  public static Tensor of(Output o) {
    Operation op = o.op();
    switch (op.type()) {
      case "Const" -> {
        return op.attrTensor("value");
      }
      case "Shape", "Size", "Rank" -> {
        return shapeQuery(op);
      }
      default -> {
        return FOLDABLE.contains(op.type()) ? fold(op, o.index()) : null;
      }
    }
  }

  /** The value of {@code o} as longs (it must be an integer tensor), or null when unknown. */
  public static long[] longs(Output o) {
    Tensor t = of(o);
    return t == null ? null : longs(t);
  }

  public static long[] longs(Tensor t) {
    long[] r = new long[t.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = t.getLong(i);
    }
    return r;
  }

  /**
   * {@code o}, a vector of dimension sizes, as a possibly partial shape: known entries of a folded
   * value (negative ones unknown), the static shape of {@code x} for {@code Shape(x)}, a ConcatV2
   * of such parts, or at least its length.
   */
  public static Shape asShape(Output o) {
    Tensor t = of(o);
    if (t != null) {
      long[] d = longs(t);
      for (int i = 0; i < d.length; i++) {
        d[i] = Math.max(d[i], -1);
      }
      return Shape.of(d);
    }
    Operation op = o.op();
    if (op.type().equals("Shape")) {
      return op.input(0).shape();
    }
    if (op.type().equals("ConcatV2") && longs(op.input(op.numInputs() - 1)) != null) {
      Shape r = Shape.scalar();
      for (int i = 0; i < op.numInputs() - 1; i++) {
        Shape part = asShape(op.input(i));
        if (!part.hasKnownRank()) {
          return vectorLength(o);
        }
        for (long d : part.toArray()) {
          r = r.append(d);
        }
      }
      return r;
    }
    return vectorLength(o);
  }

  private static Shape vectorLength(Output o) {
    Shape s = o.shape();
    return s.hasKnownRank() && s.rank() == 1 && s.size(0) >= 0 ? Shape.unknownOfRank((int) s.size(0)) : Shape.unknown();
  }

  /**
   * The shape of {@code x} as a graph tensor of {@code type} (INT32 or INT64): a Const when the
   * shape is fully defined, else a Shape op evaluated at run time.
   */
  public static Output shapeOf(Ops tf, Operand x, DType type) {
    Shape s = x.shape();
    if (s.isFullyDefined()) {
      long[] d = s.toArray();
      return type == DType.INT64 ? tf.constant(d) : tf.constant(toInts(d));
    }
    return ShapeQuery.SHAPE.create(tf.scope(), x, type);
  }

  public static Output shapeOf(Ops tf, Operand x) {
    return shapeOf(tf, x, DType.INT32);
  }

  public static int[] toInts(long[] a) {
    int[] r = new int[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = Math.toIntExact(a[i]);
    }
    return r;
  }

  private static Tensor shapeQuery(Operation op) {
    Shape s = op.input(0).shape();
    DType t = op.outputType(0);
    return switch (op.type()) {
      case "Shape" -> s.isFullyDefined() ? typed(s.toArray(), t, Shape.of(s.rank())) : null;
      case "Size" -> s.isFullyDefined() ? typed(new long[] {s.numElements()}, t, Shape.scalar()) : null;
      default -> s.hasKnownRank() ? Tensor.scalar(s.rank()) : null;
    };
  }

  private static Tensor typed(long[] v, DType t, Shape shape) {
    return t == DType.INT64 ? Tensor.wrap(t, shape, v) : Tensor.wrap(DType.INT32, shape, toInts(v));
  }

  private static Tensor fold(Operation op, int index) {
    if (!op.outputType(index).isInteger()) {
      return null; // shape computations are integer; never evaluate float subgraphs while building
    }
    Tensor[] inputs = new Tensor[op.numInputs()];
    for (int i = 0; i < inputs.length; i++) {
      inputs[i] = of(op.input(i));
      if (inputs[i] == null || inputs[i].size() > MAX_ELEMENTS) {
        return null;
      }
    }
    Tensor[] outputs = new Tensor[op.numOutputs()];
    try {
      op.def().kernel(op).compute(new FoldContext(op, inputs, outputs));
    } catch (RuntimeException e) {
      return null; // the kernel will fail again, with its message, when the graph runs
    }
    return outputs[index];
  }

  /** Just enough of a kernel context to run a pure kernel on known inputs. */
  private record FoldContext(Operation op, Tensor[] inputs, Tensor[] outputs) implements KernelContext {
    @Override
    public Tensor input(int i) {
      return inputs[i];
    }

    @Override
    public int numInputs() {
      return inputs.length;
    }

    @Override
    public void setOutput(int i, Tensor value) {
      outputs[i] = value;
    }

    /** Only values the size of a shape are folded; a larger output is the kernel's to make when the graph runs. */
    @Override
    public void checkOutputSize(int i, DType dtype, Shape shape) {
      if (dev.psflow.exec.TensorSizeLimit.elements(shape) > MAX_ELEMENTS) {
        throw new IllegalStateException("too large to fold while building");
      }
    }

    @Override
    public Device device() {
      throw new UnsupportedOperationException("no device while folding constants");
    }

    @Override
    public StepContext step() {
      throw new UnsupportedOperationException("no step while folding constants");
    }

    @Override
    public void fail(StatusException error) {
      throw error;
    }
  }
}
