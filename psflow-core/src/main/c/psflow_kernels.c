/*
 * psflow's kernels in C, for the JVMs that run without C2 (a ps task, a replica worker): C1 compiles
 * loops one element at a time, and C2, the JIT that vectorizes, costs such a short-lived JVM more to
 * compile than it would save. Each function computes exactly what its Java twin does, element for
 * element and in the same order (NativeKernels, which calls them, says which), so results agree bit
 * for bit: IEEE single precision throughout, no fused multiply-add (-ffp-contract=off), a square root
 * correctly rounded as Java's (float) Math.sqrt is.
 *
 * Called through JNI (the Java_dev_psflow_tensor_NativeKernels_* functions at the end), on the Java
 * arrays themselves (GetPrimitiveArrayCritical: nothing copied); NativeKernels checks every range
 * before the call.
 *
 * Built by psflow-core's pom (gcc, Linux x86-64) into libpsflow_kernels.so, one copy of each loop per
 * instruction set (target_clones: the loader picks AVX-512, AVX2 or plain SSE2 for the machine).
 */
#define _GNU_SOURCE /* SCHED_BATCH */
#include <dirent.h>
#include <jni.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Denormals.flush: a zero exponent field (zeros and subnormals) becomes +0. */
static inline float flush(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return (bits & 0x7f800000u) == 0 ? 0.0f : x;
}

/*
 * ApplyAdam.scalar32 over elements [0, len) of already offset arrays: m and v updated in place, the
 * variable read from w and written to w_out (the same array or not).
 */
__attribute__((target_clones("avx512f", "avx2", "default")))
void psflow_apply_adam_f32(const float *w, float *w_out, float *m, float *v, const float *g, int32_t len,
                           float lr_t, float beta1, float beta2, float eps, int32_t nesterov) {
  float c1 = 1 - beta1;
  float c2 = 1 - beta2;
  /* one loop: gcc unswitches it on nesterov, which does not change inside it (-O3's -funswitch-loops) */
  for (int32_t k = 0; k < len; k++) {
    float gi = g[k];
    float mi = flush(m[k] + (gi - m[k]) * c1);
    float vi = flush(v[k] + (gi * gi - v[k]) * c2);
    m[k] = mi;
    v[k] = vi;
    float step = nesterov ? gi * c1 + mi * beta1 : mi;
    w_out[k] = w[k] - step * lr_t / (sqrtf(vi) + eps);
  }
}

/* DenseAccumulator.add: a[i] += b[i], a synchronous step's gradients summed. */
__attribute__((target_clones("avx512f", "avx2", "default")))
void psflow_add_f32(float *a, const float *b, int32_t len) {
  for (int32_t i = 0; i < len; i++) {
    a[i] += b[i];
  }
}

/* DenseAccumulator.takeAggregate: a[i] /= count, their mean (a division, as Java's, not a reciprocal's product). */
__attribute__((target_clones("avx512f", "avx2", "default")))
void psflow_divide_f32(float *a, float divisor, int32_t len) {
  for (int32_t i = 0; i < len; i++) {
    a[i] /= divisor;
  }
}

/* Relu.wherePositive: out[i] = features[i] > 0 ? values[i] : 0 (a NaN feature gives 0). */
__attribute__((target_clones("avx512f", "avx2", "default")))
void psflow_where_positive_f32(const float *features, const float *values, float *out, int32_t len) {
  for (int32_t i = 0; i < len; i++) {
    out[i] = features[i] > 0 ? values[i] : 0.0f;
  }
}

/* UnsignedBytes.toScaledFloats: dst[i] = (src[i] & 0xff) * scale. */
__attribute__((target_clones("avx512f", "avx2", "default")))
void psflow_to_scaled_floats(const uint8_t *src, float *dst, int32_t len, float scale) {
  for (int32_t i = 0; i < len; i++) {
    dst[i] = (float) src[i] * scale;
  }
}

/* Asks for every cache line of a row ahead of its use (a prefetch never faults, whatever the address). */
static inline void prefetch_row(const uint8_t *row, int32_t row_length) {
  for (int32_t k = 0; k < row_length; k += 64) {
    __builtin_prefetch(row + k);
  }
  if (row_length > 0) {
    __builtin_prefetch(row + row_length - 1);
  }
}

/*
 * UnsignedBytes.gatherScaledFloats: row rows[i] of src (row_length bytes each) to row i of dst, scaled.
 * A batch's rows lie at random in a training set larger than the cache (MNIST's 55,000 x 784 bytes),
 * and the hardware's prefetcher does not start on a 784-byte run before the loop needs it: the next
 * row is asked for while this one converts. A C microbenchmark on Zen 3 (100 random rows, 2 MB of
 * other memory written between batches): 22 us a batch against 58.
 */
void psflow_gather_scaled_floats(const uint8_t *src, const int32_t *rows, int32_t count, int32_t row_length, float *dst,
                                 float scale) {
  if (count > 0) {
    prefetch_row(src + (int64_t) rows[0] * row_length, row_length);
  }
  for (int32_t i = 0; i < count; i++) {
    if (i + 1 < count) {
      prefetch_row(src + (int64_t) rows[i + 1] * row_length, row_length);
    }
    psflow_to_scaled_floats(src + (int64_t) rows[i] * row_length, dst + (int64_t) i * row_length, row_length, scale);
  }
}

/* BiasAdd: y[r, j] = x[r, j] + b[j] over rows x cols, row-major. */
__attribute__((target_clones("avx512f", "avx2", "default")))
void psflow_bias_add_f32(const float *x, const float *b, float *y, int32_t rows, int32_t cols) {
  for (int32_t r = 0; r < rows; r++) {
    const float *xr = x + (int64_t) r * cols;
    float *yr = y + (int64_t) r * cols;
    for (int32_t j = 0; j < cols; j++) {
      yr[j] = xr[j] + b[j];
    }
  }
}

/* BiasAddGrad: db[j] += g[r, j], row after row (each column summed in BiasAddGrad's order). */
__attribute__((target_clones("avx512f", "avx2", "default")))
void psflow_bias_add_grad_f32(const float *g, float *db, int32_t rows, int32_t cols) {
  for (int32_t r = 0; r < rows; r++) {
    const float *gr = g + (int64_t) r * cols;
    for (int32_t j = 0; j < cols; j++) {
      db[j] += gr[j];
    }
  }
}

/* cblas_sgemm's signature (cblas.h), called at the address HeapSgemm has from JavaCPP's loader. */
typedef void (*cblas_sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                               const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);

/*
 * JNI. Each array is pinned with GetPrimitiveArrayCritical (no copy with HotSpot's collectors; a
 * collection waits for the call, which NativeKernels keeps short) and released in reverse order:
 * JNI_ABORT for the ones only read, 0 for the ones written. A null from Get means an OutOfMemoryError
 * is pending: release what was taken and return to it. An array passed twice (w and w_out, a and b)
 * is simply pinned twice, which JNI allows.
 */
#define PIN(var, type, array) \
  type *var = (type *) (*env)->GetPrimitiveArrayCritical(env, array, NULL)

JNIEXPORT void JNICALL Java_dev_psflow_tensor_NativeKernels_applyAdam0(JNIEnv *env, jclass cls,
    jfloatArray w, jfloatArray w_out, jfloatArray m, jfloatArray v, jint off, jfloatArray g, jint g_off, jint len,
    jfloat lr_t, jfloat beta1, jfloat beta2, jfloat eps, jboolean nesterov) {
  (void) cls;
  PIN(wp, jfloat, w);
  if (wp == NULL) return;
  PIN(op, jfloat, w_out);
  if (op == NULL) goto w_;
  PIN(mp, jfloat, m);
  if (mp == NULL) goto o_;
  PIN(vp, jfloat, v);
  if (vp == NULL) goto m_;
  PIN(gp, jfloat, g);
  if (gp == NULL) goto v_;
  psflow_apply_adam_f32(wp + off, op + off, mp + off, vp + off, gp + g_off, len, lr_t, beta1, beta2, eps, nesterov);
  (*env)->ReleasePrimitiveArrayCritical(env, g, gp, JNI_ABORT);
v_:
  (*env)->ReleasePrimitiveArrayCritical(env, v, vp, 0);
m_:
  (*env)->ReleasePrimitiveArrayCritical(env, m, mp, 0);
o_:
  (*env)->ReleasePrimitiveArrayCritical(env, w_out, op, 0);
w_:
  (*env)->ReleasePrimitiveArrayCritical(env, w, wp, 0);
}

JNIEXPORT void JNICALL Java_dev_psflow_tensor_NativeKernels_add0(JNIEnv *env, jclass cls, jfloatArray a, jfloatArray b,
    jint off, jint len) {
  (void) cls;
  PIN(ap, jfloat, a);
  if (ap == NULL) return;
  PIN(bp, jfloat, b);
  if (bp != NULL) {
    psflow_add_f32(ap + off, bp + off, len);
    (*env)->ReleasePrimitiveArrayCritical(env, b, bp, JNI_ABORT);
  }
  (*env)->ReleasePrimitiveArrayCritical(env, a, ap, 0);
}

JNIEXPORT void JNICALL Java_dev_psflow_tensor_NativeKernels_divide0(JNIEnv *env, jclass cls, jfloatArray a,
    jfloat divisor, jint off, jint len) {
  (void) cls;
  PIN(ap, jfloat, a);
  if (ap == NULL) return;
  psflow_divide_f32(ap + off, divisor, len);
  (*env)->ReleasePrimitiveArrayCritical(env, a, ap, 0);
}

JNIEXPORT void JNICALL Java_dev_psflow_tensor_NativeKernels_wherePositive0(JNIEnv *env, jclass cls,
    jfloatArray features, jfloatArray values, jfloatArray out, jint off, jint len) {
  (void) cls;
  PIN(fp, jfloat, features);
  if (fp == NULL) return;
  PIN(vp, jfloat, values);
  if (vp == NULL) goto f_;
  PIN(op, jfloat, out);
  if (op == NULL) goto v_;
  psflow_where_positive_f32(fp + off, vp + off, op + off, len);
  (*env)->ReleasePrimitiveArrayCritical(env, out, op, 0);
v_:
  (*env)->ReleasePrimitiveArrayCritical(env, values, vp, JNI_ABORT);
f_:
  (*env)->ReleasePrimitiveArrayCritical(env, features, fp, JNI_ABORT);
}

JNIEXPORT void JNICALL Java_dev_psflow_tensor_NativeKernels_toScaledFloats0(JNIEnv *env, jclass cls, jbyteArray src,
    jint src_off, jfloatArray dst, jint dst_off, jint len, jfloat scale) {
  (void) cls;
  PIN(sp, jbyte, src);
  if (sp == NULL) return;
  PIN(dp, jfloat, dst);
  if (dp != NULL) {
    psflow_to_scaled_floats((const uint8_t *) sp + src_off, dp + dst_off, len, scale);
    (*env)->ReleasePrimitiveArrayCritical(env, dst, dp, 0);
  }
  (*env)->ReleasePrimitiveArrayCritical(env, src, sp, JNI_ABORT);
}

JNIEXPORT void JNICALL Java_dev_psflow_tensor_NativeKernels_gatherScaledFloats0(JNIEnv *env, jclass cls,
    jbyteArray src, jint first, jint row_length, jintArray rows, jint from, jint count, jfloatArray dst, jint dst_off,
    jfloat scale) {
  (void) cls;
  PIN(sp, jbyte, src);
  if (sp == NULL) return;
  PIN(rp, jint, rows);
  if (rp == NULL) goto s_;
  PIN(dp, jfloat, dst);
  if (dp == NULL) goto r_;
  psflow_gather_scaled_floats((const uint8_t *) sp + first, (const int32_t *) rp + from, count, row_length, dp + dst_off,
                              scale);
  (*env)->ReleasePrimitiveArrayCritical(env, dst, dp, 0);
r_:
  (*env)->ReleasePrimitiveArrayCritical(env, rows, rp, JNI_ABORT);
s_:
  (*env)->ReleasePrimitiveArrayCritical(env, src, sp, JNI_ABORT);
}

JNIEXPORT void JNICALL Java_dev_psflow_tensor_NativeKernels_biasAdd0(JNIEnv *env, jclass cls, jfloatArray x,
    jfloatArray b, jfloatArray y, jint off, jint rows, jint cols) {
  (void) cls;
  PIN(xp, jfloat, x);
  if (xp == NULL) return;
  PIN(bp, jfloat, b);
  if (bp == NULL) goto x_;
  PIN(yp, jfloat, y);
  if (yp == NULL) goto b_;
  psflow_bias_add_f32(xp + off, bp, yp + off, rows, cols);
  (*env)->ReleasePrimitiveArrayCritical(env, y, yp, 0);
b_:
  (*env)->ReleasePrimitiveArrayCritical(env, b, bp, JNI_ABORT);
x_:
  (*env)->ReleasePrimitiveArrayCritical(env, x, xp, JNI_ABORT);
}

JNIEXPORT void JNICALL Java_dev_psflow_tensor_NativeKernels_biasAddGrad0(JNIEnv *env, jclass cls, jfloatArray g,
    jfloatArray db, jint off, jint rows, jint cols) {
  (void) cls;
  PIN(gp, jfloat, g);
  if (gp == NULL) return;
  PIN(dp, jfloat, db);
  if (dp != NULL) {
    psflow_bias_add_grad_f32(gp + off, dp, rows, cols);
    (*env)->ReleasePrimitiveArrayCritical(env, db, dp, 0);
  }
  (*env)->ReleasePrimitiveArrayCritical(env, g, gp, JNI_ABORT);
}

JNIEXPORT void JNICALL Java_dev_psflow_tensor_NativeKernels_sgemm0(JNIEnv *env, jclass cls, jlong sgemm,
    jint order, jint trans_a, jint trans_b, jint m, jint n, jint k, jfloat alpha, jfloatArray a, jint a_off, jint lda,
    jfloatArray b, jint b_off, jint ldb, jfloat beta, jfloatArray c, jint c_off, jint ldc) {
  (void) cls;
  PIN(ap, jfloat, a);
  if (ap == NULL) return;
  PIN(bp, jfloat, b);
  if (bp == NULL) goto a_;
  PIN(cp, jfloat, c);
  if (cp == NULL) goto b_;
  ((cblas_sgemm_fn) (intptr_t) sgemm)(order, trans_a, trans_b, m, n, k, alpha, ap + a_off, lda, bp + b_off, ldb, beta,
                                      cp + c_off, ldc);
  (*env)->ReleasePrimitiveArrayCritical(env, c, cp, 0);
b_:
  (*env)->ReleasePrimitiveArrayCritical(env, b, bp, JNI_ABORT);
a_:
  (*env)->ReleasePrimitiveArrayCritical(env, a, ap, JNI_ABORT);
}

/*
 * Not a kernel: the process's CPU scheduling. Every thread of this process (each a task of its own to
 * Linux, listed in /proc/self/task) goes under SCHED_BATCH, which threads started later inherit from
 * the thread that starts them: a thread woken by a message no longer preempts the thread running on
 * its core, but waits for the end of that one's slice or its next wait (NativeKernels says why).
 * Returns how many threads it moved, or -1 if /proc/self/task could not be read.
 */
JNIEXPORT jint JNICALL Java_dev_psflow_tensor_NativeKernels_scheduleAsBatch0(JNIEnv *env, jclass cls) {
  (void) env;
  (void) cls;
  DIR *tasks = opendir("/proc/self/task");
  if (tasks == NULL) return -1;
  struct sched_param normal = { .sched_priority = 0 };
  int moved = 0;
  struct dirent *e;
  while ((e = readdir(tasks)) != NULL) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    if (sched_setscheduler((pid_t) atoi(e->d_name), SCHED_BATCH, &normal) == 0) moved++;
  }
  closedir(tasks);
  return moved;
}
