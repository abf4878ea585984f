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
}
