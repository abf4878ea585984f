package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HyperLogLogTest {
  @Test
  void smallCardinalitiesAreNearlyExact() {
    HyperLogLog sketch = new HyperLogLog();
    for (int round = 0; round < 10; round++) {
      for (long v = 0; v < 100; v++) {
        sketch.addLong(v);
      }
    }
    assertEquals(100, sketch.estimate(), 2);
  }

  @Test
  void largeCardinalitiesWithinFivePercent() {
    HyperLogLog left = new HyperLogLog();
    HyperLogLog right = new HyperLogLog();
    for (long v = 0; v < 1_000_000; v++) {
      (v % 2 == 0 ? left : right).addLong(v * 7919);
    }
    left.merge(right);
    long estimate = left.estimate();
    assertTrue(Math.abs(estimate - 1_000_000) < 50_000, "estimate " + estimate);
  }
  /** The hashes of many values at once, four chains interleaved, are each value's own, whatever the lengths. */
  @Test
  void hashesOfManyValuesAreEachValuesHash() {
    java.util.Random random = new java.util.Random(12);
    for (int count : new int[] {0, 1, 3, 4, 5, 9, 1000}) {
      int[] bounds = new int[count + 1];
      for (int i = 0; i < count; i++) {
        bounds[i + 1] = bounds[i] + (random.nextInt(4) == 0 ? 0 : random.nextInt(60));
      }
      byte[] bytes = new byte[bounds[count] + 5];
      random.nextBytes(bytes);
      long[] hashes = new long[count];
      HyperLogLog.hashBytes(bytes, bounds, count, hashes);
      for (int i = 0; i < count; i++) {
        assertEquals(HyperLogLog.hashBytes(bytes, bounds[i], bounds[i + 1] - bounds[i]), hashes[i],
            count + " values, value " + i);
      }
    }
  }
}
