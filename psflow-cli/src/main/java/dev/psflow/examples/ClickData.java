package dev.psflow.examples;

import dev.psflow.tensor.Tensor;
import java.util.HashSet;
import java.util.SplittableRandom;

/**
 * Synthetic click-style examples for {@link EmbeddingReplica}, generated deterministically from a
 * seed: each example holds {@code idsPerExample} hashed categorical ids whose popularity follows a
 * Zipf-like law (rank r drawn with probability ∝ 1/(r+1)^s, then hashed to a row so that popular
 * ids spread over every shard), and a click label that a model can learn: each id has a hidden
 * vote of +1 or −1 (a hash of the id), and the example is clicked when its votes sum above zero
 * (a tie is a coin flip). Not thread-safe: one per worker.
 *
 * <pre>{@code
 * ClickData data = new ClickData(7_812_500, 16, 1.05, seed + task);
 * ClickData.Batch b = data.nextBatch(512);
 * }</pre>
 */
public final class ClickData {
  /** One batch as the sparse-ids feed wants it: indices [n, 2], ids [n], labels [batch, 1], and its distinct ids. */
  public record Batch(Tensor indices, Tensor ids, Tensor denseShape, Tensor labels, int distinctIds) {}

  private final long vocabulary;
  private final int idsPerExample;
  private final double zipfS;
  private final SplittableRandom random;

  public ClickData(long vocabulary, int idsPerExample, double zipfS, long seed) {
    if (vocabulary < 1 || idsPerExample < 1 || !(zipfS > 0) || zipfS == 1.0) {
      throw new IllegalArgumentException("ClickData needs vocabulary >= 1, ids per example >= 1 and a Zipf exponent "
          + "> 0 other than 1, got " + vocabulary + ", " + idsPerExample + ", " + zipfS);
    }
    this.vocabulary = vocabulary;
    this.idsPerExample = idsPerExample;
    this.zipfS = zipfS;
    this.random = new SplittableRandom(seed);
  }

  public Batch nextBatch(int batchSize) {
    int n = batchSize * idsPerExample;
    long[] indices = new long[2 * n];
    long[] ids = new long[n];
    float[] labels = new float[batchSize];
    HashSet<Long> distinct = new HashSet<>();
    for (int e = 0; e < batchSize; e++) {
      int votes = 0;
      for (int j = 0; j < idsPerExample; j++) {
        int k = e * idsPerExample + j;
        long id = hashedId(zipfRank());
        indices[2 * k] = e;
        indices[2 * k + 1] = j;
        ids[k] = id;
        distinct.add(id);
        votes += vote(id);
      }
      labels[e] = votes > 0 || (votes == 0 && random.nextBoolean()) ? 1f : 0f;
    }
    return new Batch(Tensor.of(indices, n, 2), Tensor.of(ids, n), Tensor.of(new long[] {batchSize, idsPerExample}, 2),
        Tensor.of(labels, batchSize, 1), distinct.size());
  }

  /**
   * A rank in [0, vocabulary) with P(r) ≈ ∝ 1/(r+1)^s: the inverse of the continuous power law's
   * CDF on [1, vocabulary+1), floored (exact enough for a benchmark's skew, and O(1) per draw).
   */
  long zipfRank() {
    double a = 1 - zipfS;
    double top = Math.pow(vocabulary + 1.0, a);
    double x = Math.pow(1 + random.nextDouble() * (top - 1), 1 / a);
    return Math.min(vocabulary - 1, Math.max(0, (long) x - 1));
  }

  /** Rank to row: a bijection-like mix (SplitMix64's finalizer) so popular ids land on every shard. */
  long hashedId(long rank) {
    return Math.floorMod(mix(rank * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L), vocabulary);
  }

  /** The hidden vote of an id: +1 or −1. */
  static int vote(long id) {
    return (mix(id ^ 0xD1B54A32D192ED03L) & 1) == 0 ? 1 : -1;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
