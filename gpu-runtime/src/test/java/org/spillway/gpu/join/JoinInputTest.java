package org.spillway.gpu.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;

/** Arrow vectors and int columns into join inputs, and the Zipf generator the skewed workloads use. */
class JoinInputTest {
  @Test
  void arrowVectorsKeepValuesAndNulls() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    int n = 1 + random.nextInt(300);
    try (BufferAllocator allocator = new RootAllocator();
        BigIntVector keys = new BigIntVector("k", allocator);
        IntVector payloads = new IntVector("p", allocator)) {
      keys.allocateNew(n);
      payloads.allocateNew(n);
      boolean[] nulls = new boolean[n];
      for (int i = 0; i < n; i++) {
        nulls[i] = random.nextInt(4) == 0;
        if (nulls[i]) {
          keys.setNull(i);
        } else {
          keys.set(i, random.nextLong());
        }
        payloads.set(i, random.nextInt());
      }
      keys.setValueCount(n);
      payloads.setValueCount(n);
      JoinInput in = JoinInput.fromArrow(keys, payloads);
      assertEquals(n, in.rows());
      for (int i = 0; i < n; i++) {
        assertEquals(nulls[i], in.isNull(i), "row " + i + ", seed " + seed);
        if (!nulls[i]) {
          assertEquals(keys.get(i), in.key(i), "row " + i + ", seed " + seed);
        }
        assertEquals(payloads.get(i), in.value(i, JoinOutput.AGGREGATED), "row " + i + ", seed " + seed);
      }
    }
  }

  @Test
  void arrowRejectsOtherVectorTypes() {
    try (BufferAllocator allocator = new RootAllocator();
        Float8Vector keys = new Float8Vector("price", allocator)) {
      keys.allocateNew(1);
      keys.set(0, 1.5);
      keys.setValueCount(1);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JoinInput.fromArrow(keys, null));
      assertTrue(e.getMessage().contains("price"), e.getMessage());
    }
  }

  @Test
  void intColumnsWiden() {
    JoinInput in = JoinInput.ofInts(new int[] {-1, Integer.MIN_VALUE}, new int[] {7, 8});
    assertEquals(-1L, in.key(0));
    assertEquals(Integer.MIN_VALUE, in.key(1));
    assertEquals(8L, in.value(1, JoinOutput.AGGREGATED));
    assertEquals(1L, in.value(1, JoinOutput.MATERIALIZED));
    assertFalse(in.hasNulls());
  }

  @Test
  void zipfFrequenciesFollowTheExponent() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    for (double exponent : new double[] {0, 1, 1.75}) {
      ZipfDistribution zipf = new ZipfDistribution(10, exponent);
      int[] counts = new int[10];
      int samples = 200_000;
      for (int i = 0; i < samples; i++) {
        counts[zipf.sample(random)]++;
      }
      double expectedFirst = 1 / harmonic(10, exponent);
      assertEquals(expectedFirst, zipf.probability(0), 1e-12);
      for (int k = 0; k < 10; k++) {
        double p = Math.pow(k + 1, -exponent) / harmonic(10, exponent);
        // 0.01 is more than 9 standard deviations of a frequency from 200k samples.
        assertEquals(p, counts[k] / (double) samples, 0.01, "rank " + k + ", exponent " + exponent + ", seed " + seed);
      }
    }
    assertThrows(IllegalArgumentException.class, () -> new ZipfDistribution(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new ZipfDistribution(5, -0.5));
  }

  private static double harmonic(int n, double exponent) {
    double sum = 0;
    for (int k = 1; k <= n; k++) {
      sum += Math.pow(k, -exponent);
    }
    return sum;
  }
}
