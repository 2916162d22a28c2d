package dev.psflow.tensor;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Unsigned bytes (image pixels) to floats: {@code dst[i] = (src[i] & 0xff) * scale}, the
 * conversion TensorFlow's {@code input_data} does for MNIST. A batch of 100 images converts
 * 78,400 pixels each step; C2 leaves the plain loop scalar (it does not widen bytes to floats in
 * vectors), which was ~6% of a local step's CPU, and at C1 the batch was ~4% of a replica worker's.
 * Stateless, so thread-safe.
 */
public final class UnsignedBytes {
  private UnsignedBytes() {}

  /** Writes {@code (src[srcOff + i] & 0xff) * scale} to {@code dst[dstOff + i]} for i in [0, n). */
  public static void toScaledFloats(byte[] src, int srcOff, float[] dst, int dstOff, int n, float scale) {
    if (n >= NativeKernels.MIN_LENGTH && NativeKernels.chosen()) {
      NativeKernels.toScaledFloats(src, srcOff, dst, dstOff, n, scale); // at C1 only: C's vector loop
      return;
    }
    int done = VectorSupport.AVAILABLE ? Vectorized.toScaledFloats(src, srcOff, dst, dstOff, n, scale) : 0;
    plain(src, srcOff, dst, dstOff, done, n, scale);
  }

  /**
   * For i in [0, count): row {@code rows[from + i]} of the {@code rowLength}-byte rows that start
   * at {@code src[first]}, converted as {@link #toScaledFloats} does, to {@code dst} from {@code
   * dstOff + i * rowLength}: a batch of shuffled examples. In one call to psflow's C kernels at C1
   * only (a call per row cost a worker a JNI transition per example).
   */
  public static void gatherScaledFloats(byte[] src, int first, int rowLength, int[] rows, int from, int count,
      float[] dst, int dstOff, float scale) {
    if (rowLength >= NativeKernels.MIN_LENGTH && NativeKernels.chosen()) {
      NativeKernels.gatherScaledFloats(src, first, rowLength, rows, from, count, dst, dstOff, scale);
      return;
    }
    for (int i = 0; i < count; i++) {
      toScaledFloats(src, first + rows[from + i] * rowLength, dst, dstOff + i * rowLength, rowLength, scale);
    }
  }

  /** Elements [from, n) without vectors: the tail after the lanes, or all of them at C1. */
  static void plain(byte[] src, int srcOff, float[] dst, int dstOff, int from, int n, float scale) {
    int i = from;
    // Eight at a time, all eight read before any is written: what C1 (a replica worker's only
    // compiler) runs fastest, 0.55x the time of the plain loop for a batch (95 against 173 µs); the
    // same loop with each store beside its load was no faster than the plain one.
    for (; i + 7 < n; i += 8) {
      int s = srcOff + i;
      float x0 = (src[s] & 0xff) * scale;
      float x1 = (src[s + 1] & 0xff) * scale;
      float x2 = (src[s + 2] & 0xff) * scale;
      float x3 = (src[s + 3] & 0xff) * scale;
      float x4 = (src[s + 4] & 0xff) * scale;
      float x5 = (src[s + 5] & 0xff) * scale;
      float x6 = (src[s + 6] & 0xff) * scale;
      float x7 = (src[s + 7] & 0xff) * scale;
      int d = dstOff + i;
      dst[d] = x0;
      dst[d + 1] = x1;
      dst[d + 2] = x2;
      dst[d + 3] = x3;
      dst[d + 4] = x4;
      dst[d + 5] = x5;
      dst[d + 6] = x6;
      dst[d + 7] = x7;
    }
    for (; i < n; i++) {
      dst[dstOff + i] = (src[srcOff + i] & 0xff) * scale;
    }
  }

  /** The lanes: a class of its own because it links the Vector API (see {@link VectorSupport#AVAILABLE}). */
  private static final class Vectorized {
    // 8 lanes: 8 bytes widen to 8 ints and 8 floats in 256 bits (AVX2; AVX-512 runs them as well). A
    // machine with narrower vectors keeps the plain loop: 4 bytes are no vector shape.
    private static final boolean WIDE_ENOUGH = FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 256;
    private static final VectorSpecies<Byte> B = ByteVector.SPECIES_64;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;

    /** Converts elements [0, F.loopBound(n)) and returns that bound (0 without 256-bit vectors). */
    static int toScaledFloats(byte[] src, int srcOff, float[] dst, int dstOff, int n, float scale) {
      if (!WIDE_ENOUGH) {
        return 0;
      }
      int i = 0;
      for (int bound = F.loopBound(n); i < bound; i += F.length()) {
        FloatVector f = (FloatVector) ByteVector.fromArray(B, src, srcOff + i)
            .convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0)
            .convertShape(VectorOperators.I2F, F, 0);
        f.mul(scale).intoArray(dst, dstOff + i);
      }
      return i;
    }
  }
}
