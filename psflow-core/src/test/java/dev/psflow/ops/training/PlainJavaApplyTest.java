package dev.psflow.ops.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The fused float updates' plain-Java loops, which are all a JVM without the Vector API runs:
 * checked against the update computed in double from TensorFlow's formulas, and bit for bit
 * against the path this JVM dispatches to (vectorized lanes plus the plain tail when the tests
 * run with the Vector API, as they do under Maven). The variable and the gradient sit at
 * different offsets, as a sparse row does, and {@link #LEN} is no whole number of vectors.
 */
class PlainJavaApplyTest {
  private static final int LEN = 37;
  private static final int OFF = 3;
  private static final int G_OFF = 5;
  private static final double TOL = 1e-5;

  /** The variable, up to two slots and the gradient, as the kernels see them. */
  private record State(float[] w, float[] s1, float[] s2, float[] g) {
    static State random(long seed) {
      SplittableRandom r = new SplittableRandom(seed);
      State s = new State(values(r, OFF + LEN, -1, 1), values(r, OFF + LEN, 0, 1),
          values(r, OFF + LEN, 0, 1), values(r, G_OFF + LEN, -1, 1));
      // A slot that decays below the smallest normal float must flush to zero, not go subnormal.
      s.s1[OFF] = 1e-38f;
      s.s2[OFF] = 1e-38f;
      s.g[G_OFF] = 0f;
      return s;
    }

    State copy() {
      return new State(w.clone(), s1.clone(), s2.clone(), g.clone());
    }
  }

  @Test
  void adamMatchesTheFormulaAndTheDispatchedPath() {
    float lrT = 0.01f, b1 = 0.9f, b2 = 0.999f, eps = 1e-7f;
    for (boolean nesterov : new boolean[] {false, true}) {
      State s = State.random(nesterov ? 1 : 2);
      State plain = run(s, p -> ApplyAdam.scalar32(p.w, p.w, p.s1, p.s2, OFF, p.g, G_OFF, 0, LEN, lrT,
          b1, b2, eps, nesterov));
      State dispatched = run(s, p -> ApplyAdam.update32(p.w, p.w, p.s1, p.s2, OFF, p.g, G_OFF, LEN,
          lrT, b1, b2, eps, nesterov));
      for (int i = 0; i < LEN; i++) {
        int k = OFF + i;
        double g = s.g[G_OFF + i];
        double m = s.s1[k] + (g - s.s1[k]) * (1 - (double) b1);
        double v = s.s2[k] + (g * g - s.s2[k]) * (1 - (double) b2);
        double step = nesterov ? g * (1 - (double) b1) + b1 * m : m;
        expect(plain, k, s.w[k] - lrT * step / (Math.sqrt(v) + eps), m, v);
      }
      assertThat(plain.s1[OFF]).as("m flushed").isZero();
      assertThat(plain.s2[OFF]).as("v flushed").isZero();
      assertSameBits(plain, dispatched);
    }
  }

  @Test
  void momentumMatchesTheFormulaAndTheDispatchedPath() {
    float lr = 0.1f, mu = 0.9f;
    for (boolean nesterov : new boolean[] {false, true}) {
      State s = State.random(nesterov ? 3 : 4);
      State plain = run(s, p -> ApplyMomentum.scalar32(p.w, p.s1, OFF, p.g, G_OFF, 0, LEN, lr, mu,
          nesterov));
      State dispatched = run(s, p -> ApplyMomentum.update32(p.w, p.s1, OFF, p.g, G_OFF, LEN, lr,
          mu, nesterov));
      for (int i = 0; i < LEN; i++) {
        int k = OFF + i;
        double g = s.g[G_OFF + i];
        double a = s.s1[k] * (double) mu + g;
        double step = nesterov ? g * lr + a * mu * lr : a * lr;
        expect(plain, k, s.w[k] - step, a, s.s2[k]);
      }
      assertThat(plain.s1[OFF]).as("accum flushed").isZero();
      assertSameBits(plain, dispatched);
    }
  }

  @Test
  void adagradMatchesTheFormulaAndTheDispatchedPath() {
    float lr = 0.5f;
    State s = State.random(5);
    State plain = run(s, p -> ApplyAdagrad.scalar32(p.w, p.s1, OFF, p.g, G_OFF, 0, LEN, lr));
    State dispatched = run(s, p -> ApplyAdagrad.update32(p.w, p.s1, OFF, p.g, G_OFF, LEN, lr));
    for (int i = 0; i < LEN; i++) {
      int k = OFF + i;
      double g = s.g[G_OFF + i];
      double a = s.s1[k] + g * g;
      expect(plain, k, s.w[k] - lr * g / Math.sqrt(a), a, s.s2[k]);
    }
    assertSameBits(plain, dispatched);
  }

  @Test
  void rmsPropMatchesTheFormulaAndTheDispatchedPath() {
    float lr = 0.01f, decay = 0.1f, mu = 0.5f, eps = 1e-6f;
    State s = State.random(6);
    State plain = run(s, p -> ApplyRmsProp.scalar32(p.w, p.s1, p.s2, OFF, p.g, G_OFF, 0, LEN, lr,
        decay, mu, eps));
    State dispatched = run(s, p -> ApplyRmsProp.update32(p.w, p.s1, p.s2, OFF, p.g, G_OFF, LEN,
        lr, decay, mu, eps));
    for (int i = 0; i < LEN; i++) {
      int k = OFF + i;
      double g = s.g[G_OFF + i];
      double ms = s.s1[k] + (g * g - s.s1[k]) * decay;
      double mom = s.s2[k] * (double) mu + lr * g / Math.sqrt(ms + eps);
      expect(plain, k, s.w[k] - mom, ms, mom);
    }
    assertThat(plain.s2[OFF]).as("mom flushed").isZero();
    assertSameBits(plain, dispatched);
  }

  private static State run(State before, Consumer<State> update) {
    State s = before.copy();
    update.accept(s);
    return s;
  }

  private static void expect(State got, int k, double w, double s1, double s2) {
    assertThat((double) got.s1[k]).as("slot 1 [%d]", k).isCloseTo(s1, within(TOL * Math.max(1, Math.abs(s1))));
    assertThat((double) got.s2[k]).as("slot 2 [%d]", k).isCloseTo(s2, within(TOL * Math.max(1, Math.abs(s2))));
    assertThat((double) got.w[k]).as("var [%d]", k).isCloseTo(w, within(TOL * Math.max(1, Math.abs(w))));
  }

  private static void assertSameBits(State plain, State dispatched) {
    assertThat(dispatched.w).as("var").containsExactly(plain.w);
    assertThat(dispatched.s1).as("slot 1").containsExactly(plain.s1);
    assertThat(dispatched.s2).as("slot 2").containsExactly(plain.s2);
  }

  private static float[] values(SplittableRandom r, int n, double lo, double hi) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = (float) r.nextDouble(lo, hi);
    }
    return x;
  }
}
