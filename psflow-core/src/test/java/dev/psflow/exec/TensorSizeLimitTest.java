package dev.psflow.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.graph.Graph;
import dev.psflow.graph.Output;
import dev.psflow.ops.Ops;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * --max_tensor_bytes: a tensor over the limit fails RESOURCE_EXHAUSTED naming the op and the shape,
 * before anything is allocated — when the graph is built for shapes known then, in the kernel for
 * shapes that depend on values.
 */
class TensorSizeLimitTest {
  private static final TensorSizeLimit ONE_MB = new TensorSizeLimit(1 << 20);
  private final Device device = new Device("/job:ps/replica:0/task:0/device:CPU:0", FileAccessPolicy.UNRESTRICTED, ONE_MB);

  @Test
  void sizesAreCountedWithoutOverflow() {
    assertThat(TensorSizeLimit.bytes(DType.FLOAT32, Shape.of(1000, 1000))).isEqualTo(4_000_000);
    assertThat(TensorSizeLimit.bytes(DType.FLOAT32, Shape.of(0, Long.MAX_VALUE))).isZero();
    assertThat(TensorSizeLimit.bytes(DType.FLOAT64, Shape.of(1L << 40, 1L << 40))).isEqualTo(Long.MAX_VALUE);
    assertThat(TensorSizeLimit.times(Long.MAX_VALUE, 2)).isEqualTo(Long.MAX_VALUE);
    assertThat(TensorSizeLimit.plus(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aTensorOverTheLimitIsNamedWithItsShapeAndSize() {
    ONE_MB.check("output 0", DType.FLOAT32, Shape.of(512, 512)); // exactly 1 MiB: allowed
    assertThatThrownBy(() -> ONE_MB.check("output 0", DType.FLOAT32, Shape.of(512, 513)))
        .isInstanceOf(StatusException.class)
        .hasMessageContaining("output 0 of shape [512,513] (float) would take 1050624 bytes, more than "
            + "max_tensor_bytes = 1048576 on this task; make it smaller or raise --max_tensor_bytes")
        .satisfies(e -> assertThat(((StatusException) e).code()).isEqualTo(Code.RESOURCE_EXHAUSTED));
    assertThatThrownBy(() -> ONE_MB.check("output 0", DType.FLOAT32, Shape.of(1L << 40, 1L << 40)))
        .hasMessageContaining("would take more than 2^63 bytes");
    assertThatThrownBy(() -> TensorSizeLimit.NONE.check("x", DType.BOOL, Shape.of(1L << 32)))
        .hasMessageContaining("has 4294967296 elements, more than a tensor can hold");
  }

  @Test
  void aKernelsOutputIsCheckedAsTheSameLimitAndNamedByItsIndex() {
    ONE_MB.checkOutput(3, DType.FLOAT32, Shape.of(512, 512));
    assertThatThrownBy(() -> ONE_MB.checkOutput(3, DType.FLOAT32, Shape.of(512, 513)))
        .hasMessageContaining("output 3 of shape [512,513] (float) would take 1050624 bytes");
    assertThatThrownBy(() -> TensorSizeLimit.NONE.checkOutput(1, DType.BOOL, Shape.of(1L << 32)))
        .hasMessageContaining("output 1 of shape [4294967296] (bool) has 4294967296 elements");
  }

  @Test
  void aShapeKnownWhenTheGraphIsBuiltIsRefusedThen() {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output range = tf.withName("range").range(tf.constant(0), tf.constant(2_000_000_000), tf.constant(1));

    assertThatThrownBy(() -> Executor.build(Pruner.prune(List.of(range.op()), Set.of()), device, List.of(),
        List.of(range)))
        .hasMessageContaining("op 'range' (Range): output 0 of shape [2000000000] (int32) would take 8000000000 bytes");
  }

  @Test
  void aShapeKnownOnlyWhenTheStepRunsIsRefusedBeforeTheKernelAllocates() throws Exception {
    Graph g = new Graph();
    Ops tf = Ops.create(g);
    Output limit = tf.withName("limit").placeholder(DType.INT32, Shape.scalar());
    Output range = tf.withName("range").range(tf.constant(0), limit, tf.constant(1));
    Executor ex = Executor.build(Pruner.prune(List.of(range.op()), Set.of(limit)), device, List.of(limit),
        List.of(range));

    assertThat(ex.run(StepContext.local(1), new Tensor[] {Tensor.scalar(10)}).get(10, TimeUnit.SECONDS).get(0)
        .shape()).isEqualTo(Shape.of(10));
    assertThatThrownBy(() -> ex.run(StepContext.local(2), new Tensor[] {Tensor.scalar(2_000_000_000)})
        .get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .hasMessageContaining("output 0 of shape [2000000000] (int32) would take 8000000000 bytes")
        .hasMessageContaining("op 'range' (Range)");
  }
}
