package dev.psflow.exec;

import dev.psflow.graph.Operation;
import dev.psflow.proto.AttrValue;
import dev.psflow.proto.GraphDef;
import dev.psflow.proto.NodeDef;
import dev.psflow.proto.TensorProto;
import dev.psflow.proto.TensorShapeProto;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import java.util.List;
import java.util.Map;

/**
 * The most bytes one tensor may take on a device ({@code --max_tensor_bytes}), checked before the
 * tensor is allocated: when a partition is registered for every output whose shape is known then,
 * and by kernels whose output size depends on input values (Range, Fill, Tile, ...) or grows faster
 * than their inputs (MatMul, broadcasting) just before they allocate. A tensor over the limit fails
 * the step with RESOURCE_EXHAUSTED naming the op and the shape, instead of an OutOfMemoryError that
 * could take any other request of the task down with it. Immutable and thread-safe.
 *
 * <pre>{@code
 * TensorSizeLimit limit = new TensorSizeLimit(1L << 30);
 * limit.check("output 0", DType.FLOAT32, Shape.of(1 << 20, 1 << 20));   // RESOURCE_EXHAUSTED
 * }</pre>
 *
 * @param maxBytes the largest tensor allowed, in bytes (elements × element size; 8 bytes per
 *     string or resource element, counting the reference only)
 */
public record TensorSizeLimit(long maxBytes) {
  /**
   * The default limit: a quarter of the JVM's maximum heap, so that a few tensors at the limit (an
   * op's inputs and output, a copy on the wire) still fit.
   */
  public static final TensorSizeLimit DEFAULT = new TensorSizeLimit(Runtime.getRuntime().maxMemory() / 4);
  /** No limit but the JVM's own (an array holds at most {@code Integer.MAX_VALUE - 8} elements). */
  public static final TensorSizeLimit NONE = new TensorSizeLimit(Long.MAX_VALUE);

  /** The most elements a Java array (so a psflow tensor) can hold. */
  public static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;

  public TensorSizeLimit {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("max_tensor_bytes must be positive, got " + maxBytes);
    }
  }

  /** The bytes a tensor of {@code dtype} and the fully defined {@code shape} takes; Long.MAX_VALUE when that overflows. */
  public static long bytes(DType dtype, Shape shape) {
    long n = elements(shape);
    int size = dtype.byteSize() > 0 ? dtype.byteSize() : 8;
    return n > Long.MAX_VALUE / size ? Long.MAX_VALUE : n * size;
  }

  /** The number of elements of the fully defined {@code shape}; Long.MAX_VALUE when that overflows. */
  public static long elements(Shape shape) {
    long n = 1;
    for (int i = 0; i < shape.rank(); i++) {
      long d = shape.size(i);
      if (d == 0) {
        return 0;
      }
      n = d > Long.MAX_VALUE / n ? Long.MAX_VALUE : n * d;
    }
    return n;
  }

  /**
   * Fails with RESOURCE_EXHAUSTED when a tensor of {@code dtype} and {@code shape} (fully defined)
   * would be over the limit, or more than a Java array holds. {@code what} names the tensor.
   */
  public void check(String what, DType dtype, Shape shape) {
    long bytes = bytes(dtype, shape);
    if (bytes > maxBytes) {
      throw new StatusException(Code.RESOURCE_EXHAUSTED, what + " of shape " + shape + " (" + dtype + ") would take "
          + describe(bytes) + ", more than max_tensor_bytes = " + maxBytes
          + " on this task; make it smaller or raise --max_tensor_bytes");
    }
    if (elements(shape) > MAX_ELEMENTS) {
      throw new StatusException(Code.RESOURCE_EXHAUSTED, what + " of shape " + shape + " (" + dtype + ") has "
          + describeElements(shape) + " elements, more than a tensor can hold (" + MAX_ELEMENTS + ")");
    }
  }

  /**
   * {@link #check} for a kernel's output {@code index}, run for every output of every step: its
   * name is spelled only when it fails.
   */
  public void checkOutput(int index, DType dtype, Shape shape) {
    if (bytes(dtype, shape) > maxBytes || elements(shape) > MAX_ELEMENTS) {
      check("output " + index, dtype, shape);
    }
  }

  /**
   * Checks every output of {@code op} whose shape is fully known before it runs (at registration):
   * a graph that would certainly allocate too much fails before it is accepted.
   */
  public void checkStaticOutputs(Operation op) {
    for (int i = 0; i < op.numOutputs(); i++) {
      Shape s = op.outputShape(i);
      if (s.isFullyDefined()) {
        check("op '" + op.name() + "' (" + op.type() + "): output " + i, op.outputType(i), s);
      }
    }
  }

  /**
   * Checks the tensors a GraphDef's attrs hold (Const values) before they are decoded: a
   * TensorProto may give a huge shape and one value, which decoding would repeat into every
   * element. RESOURCE_EXHAUSTED naming the node and the attr.
   */
  public void checkGraphDef(GraphDef def) {
    for (NodeDef n : def.getNodeList()) {
      for (Map.Entry<String, AttrValue> a : n.getAttrMap().entrySet()) {
        AttrValue v = a.getValue();
        String what = "GraphDef node '" + abbreviate(n.getName()) + "' (" + abbreviate(n.getOp()) + ") attr '"
            + abbreviate(a.getKey()) + "'";
        if (v.hasTensor()) {
          checkProto(what, v.getTensor());
        }
        for (TensorProto t : v.getList().getTensorList()) {
          checkProto(what, t);
        }
      }
    }
  }

  /**
   * Checks a TensorProto's declared size before it is decoded (RESOURCE_EXHAUSTED naming
   * {@code what}). Shapes that are not valid at all are left to the decoder to reject.
   */
  public void checkProto(String what, TensorProto p) {
    List<TensorShapeProto.Dim> dims = p.getTensorShape().getDimList();
    long[] sizes = new long[dims.size()];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = dims.get(i).getSize();
      if (sizes[i] < 0) {
        return;
      }
    }
    DType dtype;
    try {
      dtype = DType.fromNumber(p.getDtypeValue());
    } catch (IllegalArgumentException e) {
      return;
    }
    check(what + ": tensor", dtype, Shape.of(sizes));
  }

  /** {@code a * b} for non-negative sizes, Long.MAX_VALUE when that overflows (a size no check lets through). */
  public static long times(long a, long b) {
    return a == 0 || b == 0 ? 0 : a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
  }

  /** {@code a + b} for non-negative sizes, Long.MAX_VALUE when that overflows. */
  public static long plus(long a, long b) {
    return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  private static String describe(long bytes) {
    return bytes == Long.MAX_VALUE ? "more than 2^63 bytes" : bytes + " bytes";
  }

  private static String describeElements(Shape shape) {
    long n = elements(shape);
    return n == Long.MAX_VALUE ? "more than 2^63" : String.valueOf(n);
  }
}
