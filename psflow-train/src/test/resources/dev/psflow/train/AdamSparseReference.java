package reference;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.tensorflow.Graph;
import org.tensorflow.Operand;
import org.tensorflow.Result;
import org.tensorflow.Session;
import org.tensorflow.ndarray.Shape;
import org.tensorflow.ndarray.buffer.DataBuffers;
import org.tensorflow.op.Op;
import org.tensorflow.op.Ops;
import org.tensorflow.op.core.Gradients;
import org.tensorflow.op.core.Placeholder;
import org.tensorflow.op.core.Unique;
import org.tensorflow.op.core.VarHandleOp;
import org.tensorflow.op.linalg.MatMul;
import org.tensorflow.types.TFloat32;
import org.tensorflow.types.TInt32;

/**
 * Reference numbers for psflow's AdamSparseParityTest, produced by real TensorFlow (TF Java 1.1.0,
 * TensorFlow 2.18's C++ runtime, TF_ENABLE_ONEDNN_OPTS=0), graph mode, float32.
 *
 * <p>Model: an embedding table emb [10,4] looked up with 5 ids per step (GatherV2, ids change every
 * step, some steps repeat an id), a linear head pred = rows·w + b (w [4,1], b [1]), loss =
 * mean((pred − y)²). 20 steps of Adam (lr 0.05, β1 0.9, β2 0.999, ε 1e-8) on emb, w and b, with
 * shared beta1_power/beta2_power multiplied by β1/β2 after every step's updates, as TF1's
 * AdamOptimizer does. The loss of a step is fetched in the same run as the update (so it is the
 * loss before that step's update). The gradient of the lookup is taken as TF1's Python GatherV2
 * gradient makes it: IndexedSlices(values = dloss/drows, indices = ids), with dloss/drows, dw, db from
 * TensorFlow's C++ gradients (tf.gradients with respect to rows, w's read and b's read).
 *
 * <p>Three ways to apply the sparse gradient to emb (w and b always use ResourceApplyAdam):
 * <ul>
 *   <li>{@code tf1} — TF1's AdamOptimizer._apply_sparse_shared, literally, with resource ops on the
 *       deduplicated slices (_deduplicate_indexed_slices: Unique + UnsortedSegmentSum):
 *       m ← m·β1; m[ids] += (1−β1)·g; v ← v·β2; v[ids] += (1−β2)·g²;
 *       var −= lr·√(1−β2^t)/(1−β1^t) · m / (√v + ε) over all rows.
 *   <li>{@code dense} — ResourceApplyAdam on the densified gradient (UnsortedSegmentSum into [10,4]),
 *       which is what the above equals.
 *   <li>{@code lazy} — tf.contrib.opt.LazyAdamOptimizer._apply_sparse on the deduplicated slices:
 *       only rows ids: m[ids] = β1·m[ids] + (1−β1)·g, v[ids] = β2·v[ids] + (1−β2)·g²,
 *       var[ids] −= lr_t · m[ids] / (√v[ids] + ε).
 * </ul>
 *
 * <p>Not part of psflow's build: a Maven project of its own depending on
 * org.tensorflow:tensorflow-core-api:1.1.0 and org.tensorflow:tensorflow-core-native:1.1.0
 * (classifier linux-x86_64), run with
 * {@code TF_ENABLE_ONEDNN_OPTS=0 java -cp "target/classes:target/lib/*" reference.AdamSparseReference};
 * it prints the constants of AdamSparseParityTest.
 */
public final class AdamSparseReference {
  static final int VOCAB = 10;
  static final int DIM = 4;
  static final int N = 5;
  static final int STEPS = 20;
  static final float LR = 0.05f;
  static final float B1 = 0.9f;
  static final float B2 = 0.999f;
  static final float EPS = 1e-8f;

  static float emb0(int i, int j) {
    return ((i * DIM + j) * 37 % 19 - 9) / 10f;
  }

  static final float[] W0 = {0.5f, -0.3f, 0.8f, -0.6f};
  static final float B0 = 0.1f;

  /** The ids of step t: they change every step; every third step repeats its first id. */
  static int[] ids(int t) {
    return new int[] {3 * t % 10, (3 * t + 1) % 10, (7 * t + 4) % 10, (5 * t + 2) % 10,
        t % 3 == 0 ? 3 * t % 10 : (t + 9) % 10};
  }

  static float[] labels(int t) {
    float[] y = new float[N];
    for (int k = 0; k < N; k++) {
      y[k] = ((k + 2 * t) % 5 - 2) * 0.5f;
    }
    return y;
  }

  public static void main(String[] args) {
    System.out.println("// TensorFlow " + org.tensorflow.TensorFlow.version());
    double[][] tf1 = null;
    for (String mode : List.of("tf1", "dense", "lazy")) {
      double[][] r = run(mode);
      print(mode, r);
      if (mode.equals("tf1")) {
        tf1 = r;
      } else if (mode.equals("dense")) {
        System.out.printf(Locale.ROOT, "// dense vs tf1: max relative difference of losses %.3g, of values %.3g%n",
            maxRel(r[0], tf1[0]), maxRel(concat(r), concat(tf1)));
      }
    }
  }

  /** {losses[20], emb[40], w[4], b[1]} after 20 steps. */
  static double[][] run(String mode) {
    try (Graph g = new Graph()) {
      Ops tf = Ops.create(g);
      Placeholder<TInt32> ids = tf.withName("ids").placeholder(TInt32.class, Placeholder.shape(Shape.of(N)));
      Placeholder<TFloat32> y = tf.withName("y").placeholder(TFloat32.class, Placeholder.shape(Shape.of(N, 1)));
      float[][] e0 = new float[VOCAB][DIM];
      for (int i = 0; i < VOCAB; i++) {
        for (int j = 0; j < DIM; j++) {
          e0[i][j] = emb0(i, j);
        }
      }
      float[][] w0 = new float[DIM][1];
      for (int j = 0; j < DIM; j++) {
        w0[j][0] = W0[j];
      }
      List<Op> inits = new ArrayList<>();
      Operand<?> emb = var(tf, "emb", Shape.of(VOCAB, DIM), tf.constant(e0), inits);
      Operand<?> embM = var(tf, "emb_m", Shape.of(VOCAB, DIM), tf.constant(new float[VOCAB][DIM]), inits);
      Operand<?> embV = var(tf, "emb_v", Shape.of(VOCAB, DIM), tf.constant(new float[VOCAB][DIM]), inits);
      Operand<?> w = var(tf, "w", Shape.of(DIM, 1), tf.constant(w0), inits);
      Operand<?> wM = var(tf, "w_m", Shape.of(DIM, 1), tf.constant(new float[DIM][1]), inits);
      Operand<?> wV = var(tf, "w_v", Shape.of(DIM, 1), tf.constant(new float[DIM][1]), inits);
      Operand<?> b = var(tf, "b", Shape.of(1), tf.constant(new float[] {B0}), inits);
      Operand<?> bM = var(tf, "b_m", Shape.of(1), tf.constant(new float[1]), inits);
      Operand<?> bV = var(tf, "b_v", Shape.of(1), tf.constant(new float[1]), inits);
      Operand<?> beta1Power = var(tf, "beta1_power", Shape.scalar(), tf.constant(B1), inits);
      Operand<?> beta2Power = var(tf, "beta2_power", Shape.scalar(), tf.constant(B2), inits);

      Operand<TFloat32> embRead = tf.readVariableOp(emb, TFloat32.class);
      Operand<TFloat32> wRead = tf.readVariableOp(w, TFloat32.class);
      Operand<TFloat32> bRead = tf.readVariableOp(b, TFloat32.class);
      Operand<TFloat32> rows = tf.gather(embRead, ids, tf.constant(0));
      Operand<TFloat32> pred = tf.math.add(tf.linalg.matMul(rows, wRead), bRead);
      Operand<TFloat32> loss = tf.withName("loss").math.mean(tf.math.square(tf.math.sub(pred, y)), tf.constant(new int[] {0, 1}));
      Gradients grads = tf.gradients(loss, List.of(rows, wRead, bRead));
      Operand<TFloat32> dRows = grads.dy(0);
      Operand<TFloat32> dW = grads.dy(1);
      Operand<TFloat32> dB = grads.dy(2);

      // Every update after the forward pass and the gradients.
      Ops upd = tf.withControlDependencies(List.<Op>of(loss, dRows, dW, dB));
      Operand<TFloat32> b1p = upd.readVariableOp(beta1Power, TFloat32.class);
      Operand<TFloat32> b2p = upd.readVariableOp(beta2Power, TFloat32.class);
      Operand<TFloat32> lr = upd.constant(LR);
      Operand<TFloat32> beta1 = upd.constant(B1);
      Operand<TFloat32> beta2 = upd.constant(B2);
      Operand<TFloat32> eps = upd.constant(EPS);
      List<Op> updates = new ArrayList<>();
      updates.add(upd.train.resourceApplyAdam(w, wM, wV, b1p, b2p, lr, beta1, beta2, eps, dW));
      updates.add(upd.train.resourceApplyAdam(b, bM, bV, b1p, b2p, lr, beta1, beta2, eps, dB));
      if (mode.equals("dense")) {
        Operand<TFloat32> dense = upd.math.unsortedSegmentSum(dRows, ids, upd.constant(VOCAB));
        updates.add(upd.train.resourceApplyAdam(emb, embM, embV, b1p, b2p, lr, beta1, beta2, eps, dense));
      } else {
        // _deduplicate_indexed_slices: unique ids, their rows summed.
        Unique<TInt32, TInt32> unique = upd.unique(ids, upd.constant(new int[] {0}));
        Operand<TInt32> uniqueIds = unique.y();
        Operand<TFloat32> summed = upd.math.unsortedSegmentSum(dRows, unique.idx(), upd.size(uniqueIds));
        Operand<TFloat32> one = upd.constant(1f);
        Operand<TFloat32> lrT = upd.math.div(upd.math.mul(lr, upd.math.sqrt(upd.math.sub(one, b2p))),
            upd.math.sub(one, b1p));
        updates.add(mode.equals("tf1")
            ? tf1Sparse(upd, emb, embM, embV, uniqueIds, summed, lrT, beta1, beta2, eps, one)
            : lazySparse(upd, emb, embM, embV, uniqueIds, summed, lrT, beta1, beta2, eps, one));
      }
      Ops after = tf.withControlDependencies(updates);
      Op finish = after.withName("finish").noOp();
      Op p1 = after.assignVariableOp(beta1Power, after.math.mul(after.readVariableOp(beta1Power, TFloat32.class), beta1));
      Op p2 = after.assignVariableOp(beta2Power, after.math.mul(after.readVariableOp(beta2Power, TFloat32.class), beta2));

      double[][] out = new double[4][];
      out[0] = new double[STEPS];
      try (Session s = new Session(g)) {
        Session.Runner init = s.runner();
        inits.forEach(init::addTarget);
        init.run().close();
        for (int t = 0; t < STEPS; t++) {
          try (TInt32 idsT = TInt32.vectorOf(ids(t));
              TFloat32 yT = TFloat32.tensorOf(Shape.of(N, 1), DataBuffers.of(labels(t)));
              Result r = s.runner().feed(ids, idsT).feed(y, yT).fetch(loss)
                  .addTarget(finish).addTarget(p1).addTarget(p2).run()) {
            out[0][t] = ((TFloat32) r.get(0)).getFloat();
          }
        }
        try (Result r = s.runner().fetch(tf.readVariableOp(emb, TFloat32.class))
            .fetch(tf.readVariableOp(w, TFloat32.class)).fetch(tf.readVariableOp(b, TFloat32.class)).run()) {
          out[1] = flat((TFloat32) r.get(0), VOCAB * DIM);
          out[2] = flat((TFloat32) r.get(1), DIM);
          out[3] = flat((TFloat32) r.get(2), 1);
        }
      }
      return out;
    }
  }

  /** TF1 AdamOptimizer._apply_sparse_shared with resource ops. */
  static Op tf1Sparse(Ops tf, Operand<?> var, Operand<?> m, Operand<?> v, Operand<TInt32> ids, Operand<TFloat32> g,
      Operand<TFloat32> lrT, Operand<TFloat32> beta1, Operand<TFloat32> beta2, Operand<TFloat32> eps,
      Operand<TFloat32> one) {
    Op mScaled = tf.assignVariableOp(m, tf.math.mul(tf.readVariableOp(m, TFloat32.class), beta1));
    Op mAdded = tf.withControlDependencies(List.of(mScaled))
        .resourceScatterAdd(m, ids, tf.math.mul(g, tf.math.sub(one, beta1)));
    Op vScaled = tf.assignVariableOp(v, tf.math.mul(tf.readVariableOp(v, TFloat32.class), beta2));
    Op vAdded = tf.withControlDependencies(List.of(vScaled))
        .resourceScatterAdd(v, ids, tf.math.mul(tf.math.square(g), tf.math.sub(one, beta2)));
    Ops done = tf.withControlDependencies(List.of(mAdded, vAdded));
    Operand<TFloat32> mT = done.readVariableOp(m, TFloat32.class);
    Operand<TFloat32> vT = done.readVariableOp(v, TFloat32.class);
    return done.assignSubVariableOp(var,
        done.math.div(done.math.mul(lrT, mT), done.math.add(done.math.sqrt(vT), eps)));
  }

  /** tf.contrib.opt.LazyAdamOptimizer._apply_sparse with resource ops. */
  static Op lazySparse(Ops tf, Operand<?> var, Operand<?> m, Operand<?> v, Operand<TInt32> ids, Operand<TFloat32> g,
      Operand<TFloat32> lrT, Operand<TFloat32> beta1, Operand<TFloat32> beta2, Operand<TFloat32> eps,
      Operand<TFloat32> one) {
    Operand<TFloat32> mRows = tf.math.add(tf.math.mul(beta1, tf.resourceGather(m, ids, TFloat32.class)),
        tf.math.mul(tf.math.sub(one, beta1), g));
    Op mT = tf.resourceScatterUpdate(m, ids, mRows);
    Operand<TFloat32> vRows = tf.math.add(tf.math.mul(beta2, tf.resourceGather(v, ids, TFloat32.class)),
        tf.math.mul(tf.math.sub(one, beta2), tf.math.square(g)));
    Op vT = tf.resourceScatterUpdate(v, ids, vRows);
    Ops done = tf.withControlDependencies(List.of(mT, vT));
    Operand<TFloat32> mSlice = done.resourceGather(m, ids, TFloat32.class);
    Operand<TFloat32> vSlice = done.resourceGather(v, ids, TFloat32.class);
    return done.resourceScatterSub(var, ids,
        done.math.div(done.math.mul(lrT, mSlice), done.math.add(done.math.sqrt(vSlice), eps)));
  }

  static Operand<?> var(Ops tf, String name, Shape shape, Operand<TFloat32> init, List<Op> inits) {
    VarHandleOp h = tf.withName(name).varHandleOp(TFloat32.class, shape, VarHandleOp.sharedName(name));
    inits.add(tf.assignVariableOp(h, init));
    return h;
  }

  static double[] flat(TFloat32 t, int n) {
    double[] d = new double[n];
    float[] f = new float[n];
    t.asRawTensor().data().asFloats().read(f);
    for (int i = 0; i < n; i++) {
      d[i] = f[i];
    }
    return d;
  }

  static double[] concat(double[][] r) {
    List<Double> all = new ArrayList<>();
    for (int k = 1; k < r.length; k++) {
      for (double x : r[k]) {
        all.add(x);
      }
    }
    return all.stream().mapToDouble(Double::doubleValue).toArray();
  }

  static double maxRel(double[] a, double[] b) {
    double max = 0;
    for (int i = 0; i < a.length; i++) {
      max = Math.max(max, Math.abs(a[i] - b[i]) / Math.max(Math.abs(b[i]), 1e-6));
    }
    return max;
  }

  static void print(String mode, double[][] r) {
    String[] names = {"LOSSES", "EMB", "W", "B"};
    for (int k = 0; k < r.length; k++) {
      StringBuilder sb = new StringBuilder("  static final float[] " + mode.toUpperCase(Locale.ROOT) + "_" + names[k] + " = {");
      for (int i = 0; i < r[k].length; i++) {
        sb.append(i % 4 == 0 ? "\n    " : " ").append(Float.toString((float) r[k][i])).append("f,");
      }
      System.out.println(sb.append("\n  };"));
    }
  }
}
