package dev.psflow.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.psflow.proto.DataType;
import dev.psflow.proto.TensorProto;
import dev.psflow.proto.TensorShapeProto;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.ResourceHandle;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class TensorProtosTest {
  static Stream<Tensor> tensors() {
    return Stream.of(
        Tensor.of(new float[] {1, -2.5f, Float.NaN, Float.NEGATIVE_INFINITY, -0f, 1e-45f}, 2, 3),
        Tensor.scalar(Math.E),
        Tensor.of(new double[] {Double.MAX_VALUE, -0.0, Double.NaN}, 3, 1),
        Tensor.of(new int[] {Integer.MIN_VALUE, 0, 1, Integer.MAX_VALUE}, 2, 2),
        Tensor.scalar(-7),
        Tensor.of(new long[] {Long.MIN_VALUE, 1L << 40, Long.MAX_VALUE}, 3),
        Tensor.of(new boolean[] {true, false, false, true}, 4),
        Tensor.scalar(true),
        Tensor.of(new String[] {"", "psflow", "日本語", "a\0b"}, 2, 2),
        Tensor.scalar(""),
        Tensor.scalar(new ResourceHandle("/job:ps/replica:0/task:0/device:CPU:0", "", "hid_w")),
        Tensor.wrap(DType.RESOURCE, Shape.of(2), new ResourceHandle[] {new ResourceHandle("/cpu:0", "c", "v"), null}));
  }

  @ParameterizedTest
  @MethodSource("tensors")
  void everyDtypeRoundTrips(Tensor t) {
    TensorProto p = TensorProtos.toProto(t);
    assertThat(p.getDtype().getNumber()).isEqualTo(t.dtype().number());
    assertThat(TensorProtos.fromProto(p)).isEqualTo(t);
    assertThat(TensorProtos.fromProto(reparse(p))).isEqualTo(t);
  }

  @ParameterizedTest
  @EnumSource(DType.class)
  void emptyTensorsOfEveryDtypeRoundTrip(DType dtype) {
    Tensor empty = Tensor.zeros(dtype, Shape.of(0, 5));
    TensorProto p = TensorProtos.toProto(empty);
    assertThat(p.getTensorContent().isEmpty()).isTrue();
    assertThat(TensorProtos.fromProto(reparse(p))).isEqualTo(empty);
  }

  @Test
  void numbersTravelAsLittleEndianBytesInTensorContent() {
    TensorProto p = TensorProtos.toProto(Tensor.vector(1f, -2f));
    assertThat(p.getTensorContent().toByteArray())
        .containsExactly(0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0);
    TensorProto ints = TensorProtos.toProto(Tensor.vector(0x01020304));
    assertThat(ints.getTensorContent().toByteArray()).containsExactly(4, 3, 2, 1);
    TensorProto bools = TensorProtos.toProto(Tensor.of(new boolean[] {true, false}, 2));
    assertThat(bools.getTensorContent().toByteArray()).containsExactly(1, 0);
    assertThat(TensorProtos.toProto(Tensor.scalar("x")).getStringValList()).containsExactly(ByteString.copyFromUtf8("x"));
  }

  @Test
  void aLargeTensorRoundTrips() {
    Random rnd = new Random(7);
    float[] f = new float[1 << 20];
    for (int i = 0; i < f.length; i++) {
      f[i] = rnd.nextFloat();
    }
    Tensor big = Tensor.of(f, 1024, 1024);
    TensorProto p = TensorProtos.toProto(big);
    assertThat(p.getTensorContent().size()).isEqualTo(4 << 20);
    assertThat(TensorProtos.fromProto(reparse(p))).isEqualTo(big);
  }

  @Test
  void tensorFlowsTypedValuesAreReadWithTheLastValueRepeated() {
    TensorProto splat = TensorProto.newBuilder().setDtype(DataType.DT_FLOAT)
        .setTensorShape(TensorProtos.toProto(Shape.of(2, 2))).addFloatVal(1).addFloatVal(3).build();
    assertThat(TensorProtos.fromProto(splat)).isEqualTo(Tensor.of(new float[] {1, 3, 3, 3}, 2, 2));
    TensorProto zeros = TensorProto.newBuilder().setDtype(DataType.DT_INT64)
        .setTensorShape(TensorProtos.toProto(Shape.of(3))).build();
    assertThat(TensorProtos.fromProto(zeros)).isEqualTo(Tensor.vector(0L, 0L, 0L));
    TensorProto scalar = TensorProto.newBuilder().setDtype(DataType.DT_BOOL).addBoolVal(true).build();
    assertThat(TensorProtos.fromProto(scalar)).isEqualTo(Tensor.scalar(true));
  }

  @Test
  void inconsistentProtosAreRejectedWithTheReason() {
    TensorProto shortContent = TensorProto.newBuilder().setDtype(DataType.DT_DOUBLE)
        .setTensorShape(TensorProtos.toProto(Shape.of(2))).setTensorContent(ByteString.copyFrom(new byte[12])).build();
    assertThatThrownBy(() -> TensorProtos.fromProto(shortContent)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tensor_content of a double tensor of 2 elements must hold 16 bytes, got 12");
    TensorProto partial = TensorProtos.toProto(Tensor.scalar(1f)).toBuilder()
        .setTensorShape(TensorProtos.toProto(Shape.of(-1))).build();
    assertThatThrownBy(() -> TensorProtos.fromProto(partial)).hasMessage("a tensor needs a fully defined shape, got [?]");
    TensorProto strings = TensorProtos.toProto(Tensor.of(new String[] {"a", "b"}, 2)).toBuilder().addStringVal(ByteString.EMPTY).build();
    assertThatThrownBy(() -> TensorProtos.fromProto(strings)).hasMessage("a string tensor of 2 elements has 3 string_val");
    assertThatThrownBy(() -> TensorProtos.fromProto(TensorProto.getDefaultInstance()))
        .hasMessage("dtype is DT_INVALID (not set)");
    assertThatThrownBy(() -> TensorProtos.fromProto(TensorProto.newBuilder().setDtypeValue(5).build()))
        .hasMessage("unknown dtype number 5");
  }

  @Test
  void shapesKeepUnknownDimensionsAndUnknownRank() {
    for (Shape s : new Shape[] {Shape.scalar(), Shape.of(3, 4), Shape.of(-1, 784), Shape.unknownOfRank(2), Shape.unknown()}) {
      assertThat(TensorProtos.fromProto(TensorProtos.toProto(s))).isEqualTo(s);
    }
    assertThat(TensorProtos.toProto(Shape.unknown()).getUnknownRank()).isTrue();
    assertThat(TensorProtos.toProto(Shape.of(-1, 2)).getDim(0).getSize()).isEqualTo(-1);
    assertThatThrownBy(() -> TensorProtos.fromProto(TensorShapeProto.newBuilder()
        .setUnknownRank(true).addDim(TensorShapeProto.Dim.newBuilder().setSize(2)).build()))
        .hasMessage("a shape of unknown rank lists 1 dimensions");
  }

  @ParameterizedTest
  @EnumSource(DType.class)
  void dtypesMapToTensorFlowsDataTypeNumbers(DType t) {
    assertThat(TensorProtos.toProto(t).getNumber()).isEqualTo(t.number());
    assertThat(TensorProtos.fromProto(TensorProtos.toProto(t))).isEqualTo(t);
  }

  private static TensorProto reparse(TensorProto p) {
    try {
      return TensorProto.parseFrom(p.toByteArray());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aShapeWhoseElementCountOverflowsIsRefused() {
    TensorProto p = TensorProto.newBuilder().setDtype(DataType.DT_FLOAT)
        .setTensorShape(TensorProtos.toProto(Shape.of(1L << 32, 1L << 32))).build();
    assertThatThrownBy(() -> TensorProtos.fromProto(p)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[4294967296,4294967296]");
  }

  @Test
  void aSplatLargerThanAQuarterOfTheHeapIsRefusedBeforeAllocating() {
    long n = TensorProtos.MAX_FILL_BYTES / 8 + 1;
    org.junit.jupiter.api.Assumptions.assumeTrue(n < Integer.MAX_VALUE - 8, "a heap this large fills any int-indexed tensor");
    TensorProto p = TensorProto.newBuilder().setDtype(DataType.DT_DOUBLE)
        .setTensorShape(TensorProtos.toProto(Shape.of(n))).addDoubleVal(1).build();
    assertThatThrownBy(() -> TensorProtos.fromProto(p)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("larger than a quarter of the heap");
  }
}
