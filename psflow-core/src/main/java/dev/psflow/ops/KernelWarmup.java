package dev.psflow.ops;

import dev.psflow.exec.VariableResource;
import dev.psflow.ops.training.ApplyAdam;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Gemm;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Compiles the vectorized kernels before a program needs them. Vector API code runs about a
 * hundred times slower than scalar code until the JIT's top tier has compiled it (seconds for a
 * cold 100x784x100 GEMM), so a training run's first steps would crawl; a daemon thread runs the
 * hot kernels on small data while the program loads its data and builds its graph. Idempotent.
 *
 * <pre>{@code
 * KernelWarmup.start();   // first thing in main(); a ps task: start(false, true)
 * }</pre>
 */
public final class KernelWarmup {
  private static final AtomicBoolean STARTED = new AtomicBoolean();

  private KernelWarmup() {}

  /** Warms every kernel: for a program that both computes gradients and applies them. */
  public static void start() {
    start(true, true);
  }

  /**
   * Warms the matrix products ({@code gemm}: what a worker's forward and backward passes run)
   * and/or the Adam update ({@code adam}: what a ps runs). A task warms only what it will run: the
   * others share its cores while they start.
   */
  public static void start(boolean gemm, boolean adam) {
    if (!(gemm || adam) || !Boolean.parseBoolean(System.getProperty("psflow.warmup", "true"))
        || !STARTED.compareAndSet(false, true)) {
      return;
    }
    Thread t = new Thread(() -> run(gemm, adam), "psflow-kernel-warmup");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  private static void run(boolean gemm, boolean adam) {
    try {
      if (gemm) {
        gemm(200);
      }
      if (adam) {
        adam(400);
      }
    } catch (RuntimeException e) {
      // Warming up is an optimization only; a failure here must never disturb the program.
    }
  }

  /**
   * The kinds of shape a model's products have, in all three layouts: whole tiles with one K
   * block; edge tiles (rows and columns past the last whole tile) with two K blocks, whose second
   * block adds to C; and a narrow layer's products (n = 10, and k = 10 for C·Bᵀ), sized above
   * Gemm's scalar threshold of 4096 multiply-adds so that they reach the narrow micro-kernels.
   * Every shape runs every round, so each branch is in the profile C2 compiles from: a path the
   * warm-up never took is compiled without it, and the first real step that takes it throws the
   * compiled kernel away to compile it again (seen on every worker: the K-block branch of the
   * widest micro-kernel, deoptimized at the first step).
   */
  private static void gemm(int rounds) {
    int[][] shapes = {{16, 96, 96}, {12, 272, 52}, {13, 44, 10}}; // m, k, n
    int most = 0;
    for (int[] s : shapes) {
      most = Math.max(most, Math.max(s[0] * s[1], s[1] * s[2]));
    }
    float[] a = new float[most];
    float[] b = new float[most];
    float[] c = new float[most];
    for (int r = 0; r < rounds; r++) {
      for (int[] s : shapes) {
        products(s[0], s[1], s[2], a, b, c);
      }
    }
  }

  /** C = A·B, then Aᵀ·C and C·Bᵀ, as a layer's forward pass and its two gradients. */
  private static void products(int m, int k, int n, float[] a, float[] b, float[] c) {
    Gemm.sgemm(false, false, m, n, k, a, 0, k, b, 0, n, c, 0, n, false);
    Gemm.sgemm(true, false, k, n, m, a, 0, k, c, 0, n, b, 0, n, false);
    Gemm.sgemm(false, true, m, k, n, c, 0, n, b, 0, n, a, 0, k, false);
  }

  private static void adam(int rounds) {
    Shape s = Shape.of(4096);
    VariableResource var = variable("w", s);
    VariableResource mv = variable("m", s);
    VariableResource vv = variable("v", s);
    Tensor grad = Tensor.zeros(DType.FLOAT32, s);
    for (int r = 0; r < rounds; r++) {
      ApplyAdam.apply(var, mv, vv, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, grad, false);
    }
  }

  private static VariableResource variable(String name, Shape s) {
    VariableResource v = new VariableResource(name, DType.FLOAT32, s);
    v.assign(Tensor.zeros(DType.FLOAT32, s));
    return v;
  }
}
