package dev.psflow.bench;

import dev.psflow.tensor.Gemm;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of {@link Gemm#sgemm} on the shapes of the MNIST MLP step (forward, and both
 * backprop products) plus a square one. Shapes are "MxKxN" with an optional ":tA" or ":tB", the
 * operand stored transposed. Multiply ops/s by 2·M·N·K for FLOP/s, or run {@link GemmGflops}.
 *
 * <pre>{@code
 * java --add-modules jdk.incubator.vector -jar psflow-bench/target/psflow-bench.jar Gemm -f 1
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// Two-second warm-up iterations: C2 takes seconds to compile the kernels on a busy machine.
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 1)
// One thread (psflow splits large products over the cores by default): the kernel's own speed.
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Dpsflow.intraOpThreads=1", "-Dpsflow.gemm=java"})
public class GemmBenchmark {
  @Param({"100x784x100", "100x100x10", "784x100x100:tA", "100x100x784:tB", "512x512x512"})
  public String shape;

  private Problem p;

  @Setup
  public void setUp() {
    p = Problem.parse(shape);
  }

  @Benchmark
  public float[] sgemm() {
    p.gemm();
    return p.c;
  }

  /** One product with its operands: C[M x N] = op(A)[M x K] * op(B)[K x N], packed densely. */
  record Problem(String name, int m, int k, int n, boolean transA, boolean transB,
      float[] a, float[] b, float[] c) {
    static Problem parse(String shape) {
      String[] parts = shape.split(":", 2);
      String[] dims = parts[0].split("x");
      if (dims.length != 3) {
        throw new IllegalArgumentException("shape must be MxKxN[:tA|:tB], got " + shape);
      }
      int m = Integer.parseInt(dims[0]);
      int k = Integer.parseInt(dims[1]);
      int n = Integer.parseInt(dims[2]);
      String flag = parts.length > 1 ? parts[1] : "";
      if (!flag.isEmpty() && !flag.equals("tA") && !flag.equals("tB")) {
        throw new IllegalArgumentException("shape suffix must be :tA or :tB, got " + shape);
      }
      SplittableRandom rnd = new SplittableRandom(42);
      return new Problem(shape, m, k, n, flag.equals("tA"), flag.equals("tB"),
          random(rnd, m * k), random(rnd, k * n), new float[m * n]);
    }

    double flops() {
      return 2.0 * m * n * k;
    }

    void gemm() {
      Gemm.sgemm(transA, transB, m, n, k, a, 0, transA ? m : k, b, 0, transB ? k : n,
          c, 0, n, false);
    }

    /**
     * The baseline: the i-k-j loop one writes first. C2 does not vectorize it, so it shows what
     * the blocked kernel buys.
     */
    void naive() {
      java.util.Arrays.fill(c, 0f);
      for (int i = 0; i < m; i++) {
        for (int kk = 0; kk < k; kk++) {
          float x = transA ? a[kk * m + i] : a[i * k + kk];
          for (int j = 0; j < n; j++) {
            c[i * n + j] += x * (transB ? b[j * k + kk] : b[kk * n + j]);
          }
        }
      }
    }

    private static float[] random(SplittableRandom rnd, int size) {
      float[] x = new float[size];
      for (int i = 0; i < size; i++) {
        x[i] = (float) rnd.nextDouble(-1, 1);
      }
      return x;
    }
  }
}
