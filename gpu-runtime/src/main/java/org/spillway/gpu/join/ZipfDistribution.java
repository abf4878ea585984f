package org.spillway.gpu.join;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Zipf-distributed ranks {@code 0 .. n-1}: rank {@code k} is drawn with probability proportional to
 * {@code 1 / (k+1)^s}; exponent 0 is uniform. Sampling inverts a precomputed CDF by binary search, so
 * memory is {@code n} doubles; meant for the join workloads' skewed keys (Zipf 0 to 1.75).
 */
public final class ZipfDistribution {
  private final double exponent;
  private final double[] cdf;

  public ZipfDistribution(int n, double exponent) {
    if (n < 1) {
      throw new IllegalArgumentException("Zipf distribution needs at least one value, got n=" + n);
    }
    if (!(exponent >= 0) || Double.isInfinite(exponent)) {
      throw new IllegalArgumentException("Zipf exponent must be finite and >= 0, got " + exponent);
    }
    this.exponent = exponent;
    this.cdf = new double[n];
    double sum = 0;
    for (int k = 0; k < n; k++) {
      sum += Math.pow(k + 1, -exponent);
      cdf[k] = sum;
    }
    for (int k = 0; k < n; k++) {
      cdf[k] /= sum;
    }
    cdf[n - 1] = 1.0;
  }

  public int size() {
    return cdf.length;
  }

  public double exponent() {
    return exponent;
  }

  /** Probability of rank {@code k}. */
  public double probability(int k) {
    return k == 0 ? cdf[0] : cdf[k] - cdf[k - 1];
  }

  /**
   * The cumulative probability of ranks 0..k as {@link #sample} searches it: a draw u becomes the smallest rank
   * whose cumulative probability is at least u (benchmarks rebuild the same draws elsewhere, e.g. in SQL).
   */
  public double cumulative(int k) {
    return cdf[k];
  }

  /** Draws one rank. */
  public int sample(SplittableRandom random) {
    int i = Arrays.binarySearch(cdf, random.nextDouble());
    // nextDouble() < 1 = cdf[n-1], so the insertion point is always a valid rank.
    return i >= 0 ? i : -i - 1;
  }
}
