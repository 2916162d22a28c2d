package dev.psflow.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.ops.training.ApplyAdam;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Reads share a variable's value and updates copy it first (copy-on-write), as TensorFlow's resource variables. */
class VariableResourceTest {
  private static VariableResource variable(String name, float... values) {
    VariableResource v = new VariableResource(name, DType.FLOAT32, Shape.of(values.length));
    v.assign(Tensor.of(values.clone(), values.length));
    return v;
  }

  private static void adam(VariableResource w, VariableResource m, VariableResource v, float... grad) {
    ApplyAdam.apply(w, m, v, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, Tensor.of(grad, grad.length), false);
  }

  @Test
  void aReadKeepsTheValueItReadWhenAnUpdateFollows() {
    VariableResource w = variable("w", 1, 2, 3);
    Tensor read = w.read();
    w.valueForUpdate().floatData()[0] = 10;
    assertThat(read.floatData()).containsExactly(1, 2, 3);
    assertThat(w.read().floatData()).containsExactly(10, 2, 3);
  }

  @Test
  void anUpdateWithNoReaderSinceTheLastCopyWritesInPlace() {
    VariableResource w = variable("w", 1, 2, 3);
    Tensor before = w.live();
    w.valueForUpdate().floatData()[0] = 10;
    assertThat(w.live()).isSameAs(before);
    Tensor read = w.read();
    assertThat(w.valueForUpdate()).isNotSameAs(read);
    assertThat(w.valueForUpdate()).as("copied once per read, not per update").isSameAs(w.valueForUpdate());
  }

  @Test
  void adamAfterAReadWritesANewValueAndLeavesTheReadOneAsItWas() {
    VariableResource w = variable("w", 1, 2, 3);
    VariableResource m = variable("w/Adam", 0, 0, 0);
    VariableResource v = variable("w/Adam_1", 0, 0, 0);
    VariableResource same = variable("w2", 1, 2, 3);
    VariableResource sameM = variable("w2/Adam", 0, 0, 0);
    VariableResource sameV = variable("w2/Adam_1", 0, 0, 0);

    Tensor read = w.read();
    adam(w, m, v, 0.5f, -1, 2);
    Tensor inPlace = same.live();
    adam(same, sameM, sameV, 0.5f, -1, 2);

    assertThat(read.floatData()).containsExactly(1, 2, 3);
    assertThat(w.live()).isNotSameAs(read);
    assertThat(same.live()).as("no reader: updated in place").isSameAs(inPlace);
    assertThat(w.live().floatData()).as("the same update either way").containsExactly(same.live().floatData());
    assertThat(w.live().floatData()[0]).isLessThan(1);
  }

  @Test
  void lockedUpdatesBesideReadsLoseNothing() throws Exception {
    VariableResource counter = variable("counter", 0, 0);
    int threads = 4;
    int updates = 2000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(pool.submit(() -> {
          for (int i = 0; i < updates; i++) {
            counter.read(); // so that the update below copies the value first, most of the time
            counter.lock().lock();
            try {
              float[] value = counter.valueForUpdate().floatData();
              value[0] += 1;
              value[1] += 1;
            } finally {
              counter.lock().unlock();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(counter.live().floatData()).containsExactly(threads * updates, threads * updates);
  }
}
