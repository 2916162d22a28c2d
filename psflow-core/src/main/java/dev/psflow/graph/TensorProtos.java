package dev.psflow.graph;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.psflow.proto.DataType;
import dev.psflow.proto.ResourceHandleProto;
import dev.psflow.proto.TensorProto;
import dev.psflow.proto.TensorShapeProto;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.ResourceHandle;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Converts tensors, shapes and dtypes to and from their protobuf messages ({@link TensorProto},
 * {@link TensorShapeProto}, {@link DataType}), for GraphDefs and for tensors on the wire. Numeric
 * elements travel as raw little-endian bytes, copied in bulk through {@link ByteBuffer} views: one
 * copy each way, no per-element boxing. Stateless and thread-safe.
 *
 * <pre>{@code
 * TensorProto p = TensorProtos.toProto(Tensor.of(new float[] {1, 2, 3, 4}, 2, 2));
 * Tensor t = TensorProtos.fromProto(p);   // equal to the original
 * }</pre>
 */
public final class TensorProtos {
  /** The most bytes a tensor may take that TensorFlow's repeat-the-last-value encoding expands. */
  static final long MAX_FILL_BYTES = Runtime.getRuntime().maxMemory() / 4;

  private TensorProtos() {}

  /** The tensor as a TensorProto: numeric and bool data in tensor_content, strings in string_val. */
  public static TensorProto toProto(Tensor t) {
    TensorProto.Builder b = TensorProto.newBuilder().setDtype(toProto(t.dtype())).setTensorShape(toProto(t.shape()));
    switch (t.dtype()) {
      case FLOAT32, FLOAT64, INT32, INT64, BOOL -> b.setTensorContent(content(t));
      case STRING -> {
        for (String s : t.stringData()) {
          b.addStringVal(ByteString.copyFromUtf8(s));
        }
      }
      case RESOURCE -> {
        for (ResourceHandle h : (ResourceHandle[]) t.data()) {
          b.addResourceHandleVal(toProto(h));
        }
      }
    }
    return b.build();
  }

  private static ByteString content(Tensor t) {
    int n = t.size();
    byte[] bytes = new byte[Math.multiplyExact(n, t.dtype().byteSize())];
    ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    switch (t.dtype()) {
      case FLOAT32 -> buf.asFloatBuffer().put(t.floatData());
      case FLOAT64 -> buf.asDoubleBuffer().put(t.doubleData());
      case INT32 -> buf.asIntBuffer().put(t.intData());
      case INT64 -> buf.asLongBuffer().put(t.longData());
      case BOOL -> {
        boolean[] v = t.boolData();
        for (int i = 0; i < n; i++) {
          bytes[i] = (byte) (v[i] ? 1 : 0);
        }
      }
      default -> throw new AssertionError(t.dtype());
    }
    // The array is ours alone and never written again, so the ByteString may share it.
    return UnsafeByteOperations.unsafeWrap(bytes);
  }

  /** The tensor a TensorProto holds; IllegalArgumentException saying what is inconsistent. */
  public static Tensor fromProto(TensorProto p) {
    DType dtype = fromProto(p.getDtypeValue());
    Shape shape = fromProto(p.getTensorShape());
    if (!shape.isFullyDefined()) {
      throw new IllegalArgumentException("a tensor needs a fully defined shape, got " + shape);
    }
    long count = shape.numElements();
    if (count > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("tensor of shape " + shape + " has too many elements (" + count + ")");
    }
    int n = (int) count;
    Object data = switch (dtype) {
      case FLOAT32, FLOAT64, INT32, INT64, BOOL -> p.getTensorContent().isEmpty() ? decodeVals(p, dtype, n) : decodeContent(p.getTensorContent(), dtype, n);
      case STRING -> strings(p.getStringValList(), n);
      case RESOURCE -> handles(p.getResourceHandleValList(), n);
    };
    return Tensor.wrap(dtype, shape, data);
  }

  private static Object decodeContent(ByteString content, DType dtype, int n) {
    if (content.size() != (long) n * dtype.byteSize()) {
      throw new IllegalArgumentException("tensor_content of a " + dtype + " tensor of " + n + " elements must hold "
          + (long) n * dtype.byteSize() + " bytes, got " + content.size());
    }
    ByteBuffer buf = content.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    return switch (dtype) {
      case FLOAT32 -> { float[] a = new float[n]; buf.asFloatBuffer().get(a); yield a; }
      case FLOAT64 -> { double[] a = new double[n]; buf.asDoubleBuffer().get(a); yield a; }
      case INT32 -> { int[] a = new int[n]; buf.asIntBuffer().get(a); yield a; }
      case INT64 -> { long[] a = new long[n]; buf.asLongBuffer().get(a); yield a; }
      case BOOL -> {
        boolean[] a = new boolean[n];
        for (int i = 0; i < n; i++) {
          a[i] = buf.get(i) != 0;
        }
        yield a;
      }
      default -> throw new AssertionError(dtype);
    };
  }

  /**
   * TensorFlow's typed fields: no values means zeros; fewer values than elements means the last
   * one repeats.
   */
  private static Object decodeVals(TensorProto p, DType dtype, int n) {
    int given = switch (dtype) {
      case FLOAT32 -> p.getFloatValCount();
      case FLOAT64 -> p.getDoubleValCount();
      case INT32 -> p.getIntValCount();
      case INT64 -> p.getInt64ValCount();
      case BOOL -> p.getBoolValCount();
      default -> throw new AssertionError(dtype);
    };
    if (given > n) {
      throw new IllegalArgumentException("a " + dtype + " tensor of " + n + " elements has " + given + " values");
    }
    // A few bytes declare a splat of any size; past a quarter of the heap it is an attack, not a constant.
    long bytes = (long) n * dtype.byteSize();
    if (given < n && bytes > MAX_FILL_BYTES) {
      throw new IllegalArgumentException("a " + dtype + " tensor of " + n + " elements (" + bytes + " bytes) filled from "
          + given + " values is larger than a quarter of the heap (" + MAX_FILL_BYTES + " bytes)");
    }
    Object a = Tensor.zeros(dtype, Shape.of(n)).data();
    for (int i = 0; i < n && given > 0; i++) {
      int j = Math.min(i, given - 1);
      switch (dtype) {
        case FLOAT32 -> ((float[]) a)[i] = p.getFloatVal(j);
        case FLOAT64 -> ((double[]) a)[i] = p.getDoubleVal(j);
        case INT32 -> ((int[]) a)[i] = p.getIntVal(j);
        case INT64 -> ((long[]) a)[i] = p.getInt64Val(j);
        case BOOL -> ((boolean[]) a)[i] = p.getBoolVal(j);
        default -> throw new AssertionError(dtype);
      }
    }
    return a;
  }

  private static String[] strings(List<ByteString> vals, int n) {
    if (vals.size() != n) {
      throw new IllegalArgumentException("a string tensor of " + n + " elements has " + vals.size() + " string_val");
    }
    String[] a = new String[n];
    for (int i = 0; i < n; i++) {
      a[i] = vals.get(i).toStringUtf8();
    }
    return a;
  }

  private static ResourceHandle[] handles(List<ResourceHandleProto> vals, int n) {
    if (vals.size() != n) {
      throw new IllegalArgumentException("a resource tensor of " + n + " elements has " + vals.size() + " resource_handle_val");
    }
    ResourceHandle[] a = new ResourceHandle[n];
    for (int i = 0; i < n; i++) {
      a[i] = fromProto(vals.get(i));
    }
    return a;
  }

  /** A null handle (an unset element of a RESOURCE tensor) becomes the empty message, and back. */
  public static ResourceHandleProto toProto(ResourceHandle h) {
    if (h == null) {
      return ResourceHandleProto.getDefaultInstance();
    }
    return ResourceHandleProto.newBuilder().setDevice(h.device()).setContainer(h.container()).setName(h.name()).build();
  }

  public static ResourceHandle fromProto(ResourceHandleProto p) {
    // by its fields, not equals(): a message carrying only unknown fields is still the null handle
    if (p.getDevice().isEmpty() && p.getContainer().isEmpty() && p.getName().isEmpty()) {
      return null;
    }
    return new ResourceHandle(p.getDevice(), p.getContainer(), p.getName());
  }

  /** -1 for an unknown dimension; {@code unknown_rank} for {@link Shape#unknown()}. */
  public static TensorShapeProto toProto(Shape s) {
    TensorShapeProto.Builder b = TensorShapeProto.newBuilder();
    if (!s.hasKnownRank()) {
      return b.setUnknownRank(true).build();
    }
    for (int i = 0; i < s.rank(); i++) {
      b.addDim(TensorShapeProto.Dim.newBuilder().setSize(s.size(i)));
    }
    return b.build();
  }

  public static Shape fromProto(TensorShapeProto p) {
    if (p.getUnknownRank()) {
      if (p.getDimCount() > 0) {
        throw new IllegalArgumentException("a shape of unknown rank lists " + p.getDimCount() + " dimensions");
      }
      return Shape.unknown();
    }
    long[] dims = new long[p.getDimCount()];
    for (int i = 0; i < dims.length; i++) {
      dims[i] = p.getDim(i).getSize();
    }
    return Shape.of(dims);
  }

  public static DataType toProto(DType t) {
    DataType d = DataType.forNumber(t.number());
    if (d == null) {
      throw new AssertionError("DataType lacks " + t);
    }
    return d;
  }

  public static DType fromProto(DataType d) {
    return fromProto(d.getNumber());
  }

  /** The DType of a DataType number; IllegalArgumentException for DT_INVALID and unknown numbers. */
  public static DType fromProto(int number) {
    if (number == DataType.DT_INVALID_VALUE) {
      throw new IllegalArgumentException("dtype is DT_INVALID (not set)");
    }
    return DType.fromNumber(number);
  }
}
