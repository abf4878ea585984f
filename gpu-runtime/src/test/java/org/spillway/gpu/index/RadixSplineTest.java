package org.spillway.gpu.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.index.SortedKeyColumns.Shape;

/** The greedy spline corridor keeps its error bound; RadixSpline answers right at any radix bits and bound. */
class RadixSplineTest {
  @Test
  void splineInterpolatesEveryKeyWithinTheErrorBound() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (Shape shape : Shape.values()) {
        for (int maxError : new int[] {0, 1, 4, 32}) {
          long[] keys = SortedKeyColumns.keys(shape, 20_000, false, random);
          try (ArrowBuf buf = SortedKeyColumns.write(allocator, keys, false)) {
            SortedKeyColumn column = SortedKeyColumns.column(buf, keys.length, false);
            long[] points = RadixSpline.corridor(column, 0, keys.length, maxError);
            assertEquals(0, points[0]);
            assertEquals(keys.length - 1, points[points.length - 1]);
            for (int p = 1; p < points.length; p++) {
              assertTrue(points[p] > points[p - 1]);
              double slope = (double) (points[p] - points[p - 1]) / toDouble(keys[(int) points[p]]
                  - keys[(int) points[p - 1]]);
              for (long row = points[p - 1]; row <= points[p]; row++) {
                double estimate = points[p - 1] + toDouble(keys[(int) row] - keys[(int) points[p - 1]]) * slope;
                assertTrue(Math.abs(estimate - row) <= maxError + 1e-6, () -> shape + " error " + maxError
                    + ": row " + " estimated at " + estimate + " seed=" + seed);
              }
            }
            if (shape == Shape.DENSE) {
              assertEquals(2, points.length, "dense keys lie on one line");
            }
          }
        }
      }
    }
  }

  @Test
  void answersRightWithAnyRadixBitsAndErrorBound() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (Shape shape : Shape.values()) {
        long[] keys = SortedKeyColumns.keys(shape, 30_000, false, random);
        long[] probes = SortedKeyColumns.probes(keys, random);
        try (ArrowBuf buf = SortedKeyColumns.write(allocator, keys, false)) {
          for (int bits : new int[] {1, 4, 18, 28}) {
            for (int maxError : new int[] {0, 3, 32, 1000}) {
              try (RadixSpline index = RadixSpline.build(SortedKeyColumns.column(buf, keys.length, false),
                  allocator, 2, bits, maxError)) {
                assertTrue(index.radixBits() <= bits && index.radixBits() <= 16, "at most 4 slots a row");
                long[] batch = new long[probes.length];
                index.lookup(probes, probes.length, batch);
                for (int i = 0; i < probes.length; i++) {
                  long probe = probes[i];
                  long expected = SortedKeyColumns.reference(keys, probe);
                  assertEquals(expected, index.lookup(probe),
                      () -> shape + " bits=" + bits + " error=" + maxError + " key " + probe + " seed=" + seed);
                  assertEquals(expected, batch[i], () -> shape + " bits=" + bits + " error=" + maxError
                      + " key " + probe + " in a batch, seed=" + seed);
                }
              }
            }
          }
        }
      }
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> RadixSpline.build(SortedKeyColumn.ofLongs(0, 0), allocator, 1, 0, 32));
      assertEquals("RadixSpline takes 1 to 28 radix bits, got 0", e.getMessage());
    }
  }

  /**
   * On evenly spaced keys (the index join benchmark's R: row r holds 4r) the estimate is the key's row, and a key in
   * a gap lies between the estimate's row and its neighbour: every key is found and every gap misses, at the
   * segments' ends too (the parallel build starts a segment per range).
   */
  @Test
  void evenlySpacedKeysAndTheKeysInTheirGapsAreAnsweredAtTheEstimate() {
    int rows = 3 * (1 << 16) + 5;
    try (BufferAllocator allocator = new RootAllocator();
         ArrowBuf buf = allocator.buffer(8L * rows)) {
      for (int r = 0; r < rows; r++) {
        buf.setLong(8L * r, 4L * r);
      }
      try (RadixSpline index = RadixSpline.build(SortedKeyColumn.ofLongs(buf.memoryAddress(), rows), allocator, 2)) {
        long[] probes = new long[4 * rows];
        for (int i = 0; i < probes.length; i++) {
          probes[i] = i;
        }
        long[] batch = new long[probes.length];
        index.lookup(probes, probes.length, batch);
        for (int i = 0; i < probes.length; i++) {
          long expected = i % 4 == 0 ? i / 4 : -1;
          assertEquals(expected, index.lookup(i), "key " + i);
          assertEquals(expected, batch[i], "key " + i + " in a batch");
        }
      }
    }
  }

  private static double toDouble(long unsigned) {
    return unsigned >= 0 ? unsigned : (double) (unsigned >>> 1) * 2.0;
  }
}
