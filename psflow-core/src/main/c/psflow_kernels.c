/*
 * psflow's kernels in C, for the JVMs that run without C2 (a ps task): C1 compiles loops one element
 * at a time, and C2, the JIT that vectorizes, costs such a short-lived JVM more to compile than it
 * would save. Each function computes exactly what its Java twin does, element for
 * element and in the same order (NativeKernels, which calls them, says which), so results agree bit
 * for bit: IEEE single precision throughout, no fused multiply-add (-ffp-contract=off), a square root
 * correctly rounded as Java's (float) Math.sqrt is.
 *
 * Built by psflow-core's pom (gcc, Linux x86-64) into libpsflow_kernels.so, one copy of each loop per
 * instruction set (target_clones: the loader picks AVX-512, AVX2 or plain SSE2 for the machine).
 */
#include <math.h>
#include <stdint.h>
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
