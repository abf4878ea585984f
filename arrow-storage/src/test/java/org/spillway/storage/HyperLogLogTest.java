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

  /**
   * A value's hash does not depend on where it lies: at any offset, in an array that ends right after it (the last
   * word then read from its end, or byte by byte in arrays shorter than a word) or that goes on.
   */
  @Test
  void aValuesHashIsTheSameWhereverItLies() {
    java.util.Random random = new java.util.Random(3);
    for (int length = 0; length <= 40; length++) {
      byte[] value = new byte[length];
      random.nextBytes(value);
      long expected = HyperLogLog.hashBytes(value, 0, length);
      for (int offset = 0; offset <= 9; offset++) {
        for (int after : new int[] {0, 1, 7, 8, 20}) {
          byte[] array = new byte[offset + length + after];
          random.nextBytes(array);
          System.arraycopy(value, 0, array, offset, length);
          assertEquals(expected, HyperLogLog.hashBytes(array, offset, length),
              "length " + length + ", offset " + offset + ", bytes after " + after);
        }
      }
    }
  }

  /** Values that differ only in trailing zero bytes, or in one bit of any byte, hash apart. */
  @Test
  void nearValuesHashApart() {
    java.util.Set<Long> hashes = new java.util.HashSet<>();
    for (int length = 0; length <= 24; length++) {
      assertTrue(hashes.add(HyperLogLog.hashBytes(new byte[length], 0, length)), "zeros of length " + length);
    }
    byte[] value = "sleep quickly. final platelets".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    for (int i = 0; i < value.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] changed = value.clone();
        changed[i] ^= (byte) (1 << bit);
        assertTrue(hashes.add(HyperLogLog.hashBytes(changed, 0, changed.length)), "byte " + i + ", bit " + bit);
      }
    }
  }

  /**
   * The text hash keeps the sketch's accuracy on values much alike (numbered words of one shape, short and long),
   * whose bytes differ in few positions: within 5 % at 20,000 and at 2 million distinct values.
   */
  @Test
  void textEstimatesStayAccurateOnValuesMuchAlike() {
    for (int distinct : new int[] {20_000, 2_000_000}) {
      HyperLogLog sketch = new HyperLogLog();
      for (int i = 0; i < distinct; i++) {
        String text = i % 3 == 0 ? "c" + i : i % 3 == 1 ? "furiously regular deposits #" + i : i + " ideas";
        byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        sketch.addBytes(bytes);
        sketch.addBytes(bytes);  // a repeat changes nothing
      }
      long estimate = sketch.estimate();
      assertTrue(Math.abs(estimate - distinct) < distinct / 20, distinct + " values: estimate " + estimate);
    }
  }
}
