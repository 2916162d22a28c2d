package dev.psflow.ops;

import dev.psflow.exec.VariableResource;
import dev.psflow.ops.training.ApplyAdam;
import dev.psflow.tensor.DType;
import dev.psflow.tensor.Gemm;
import dev.psflow.tensor.NativeBlas;
import dev.psflow.tensor.NativeKernels;
import dev.psflow.tensor.Shape;
import dev.psflow.tensor.Tensor;
import dev.psflow.tensor.VectorSupport;
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
  /**
   * Rounds of each kernel. Ten times what a quiet machine needs (200 and 400 there): a cluster's
   * tasks start together on the same cores, C2's queue is long, and the micro-kernels reach it
   * late; with 200 rounds the 10-wide one (a logit layer on AVX2) was still slow C1 code when the
   * warm-up ended and was compiled, three times over, during training's first seconds. Once
   * compiled a round costs tens of microseconds, so the extra rounds cost little: alone on a quiet
   * machine, a process running the GEMM warm-up used 0.3-0.5 s more CPU than with 200 rounds of
   * the old three shapes (compiles of the narrower kernels included).
   */
  private static final int GEMM_ROUNDS = 2000;
  private static final int ADAM_ROUNDS = 4000;
  private static final int BATCHES = 10;

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
    // Without C2 (a ps task, a worker task: C1 only) there is nothing slow to compile ahead: C1
    // compiles the plain kernels within their first calls, and a worker's products go to OpenBLAS,
    // whose loading (~0.2 s) starts now, beside the task's other start-up work.
    // With C2 the products go to OpenBLAS too (unless -Dpsflow.gemm=java): the warm-up then
    // compiles psflow's own GEMM only if OpenBLAS does not load (a pod whose home is read-only).
    if (gemm && NativeBlas.chosen()) {
      NativeBlas.loadInBackground();
    }
    // Without the Vector API the optimizer's update goes to psflow's C kernels: loading them (~10 ms) starts now
    // too, rather than inside the first step's update (a worker's load with OpenBLAS, above).
    if (adam && !VectorSupport.AVAILABLE) {
      NativeKernels.loadInBackground();
    }
    if (!(gemm || adam) || !Boolean.parseBoolean(System.getProperty("psflow.warmup", "true"))
        || !VectorSupport.C2_COMPILES || !STARTED.compareAndSet(false, true)) {
      return;
    }
    Thread t = new Thread(() -> run(gemm && !(NativeBlas.chosen() && NativeBlas.available()), adam),
        "psflow-kernel-warmup");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  private static void run(boolean gemm, boolean adam) {
    for (int batch = 0; batch < BATCHES; batch++) {
      // Each batch on a thread of its own, as the executor's threads will call the kernels: a
      // thread's first product grows its packing buffers, and a warm-up that never showed C2
      // that branch had the driver compiled without it and thrown away at the first real step.
      Thread t = new Thread(() -> batch(gemm, adam), "psflow-kernel-warmup-" + batch);
      t.setDaemon(true);
      t.start();
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void batch(boolean gemm, boolean adam) {
    try {
      if (gemm) {
        gemm(GEMM_ROUNDS / BATCHES);
      }
      if (adam) {
        adam(ADAM_ROUNDS / BATCHES);
      }
    } catch (RuntimeException e) {
      // Warming up is an optimization only; a failure here must never disturb the program.
    }
  }

  /**
   * Every shape of {@link Gemm#warmUpShapes()} in every round, so that each branch of the kernels
   * is in the profile C2 compiles from.
   */
  private static void gemm(int rounds) {
    int[][] shapes = Gemm.warmUpShapes();
    int most = 0;
    for (int[] s : shapes) {
      most = Math.max(most, Math.max(s[0] * s[1], Math.max(s[1] * s[2], s[0] * s[2])));
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
