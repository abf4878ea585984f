package org.spillway.gpu.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.spillway.gpu.index.SortedKeyColumns.Shape;

/**
 * Every index kind against {@code Arrays.binarySearch} on random sorted unique columns of every shape and of
 * sizes around the node and group boundaries, 4- and 8-byte keys, with probes that hit, miss, fall below and
 * above the keys and repeat under skew; bad columns give one clear exception and leak nothing.
 */
class SortedKeyIndexTest {
  private static final int THREADS = 3;

  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void answersLikeBinarySearchOnEveryShapeAndSize(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (boolean ints : new boolean[] {false, true}) {
        for (Shape shape : Shape.values()) {
          for (int rows : new int[] {0, 1, 2, 3, 31, 32, 33, 511, 512, 513, 1025, 5000, 20_000}) {
            long[] keys = SortedKeyColumns.keys(shape, rows, ints, random);
            check(allocator, kind, keys, ints, random,
                kind + " " + shape + (ints ? " 4-byte" : " 8-byte") + " rows=" + keys.length + " seed=" + seed);
          }
        }
      }
    }
  }

  /** Enough rows for several inner levels: three for Harmonia, two for the B+-tree (130,560 rows a node). */
  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void answersLikeBinarySearchOnDeepTrees(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (Shape shape : new Shape[] {Shape.DENSE, Shape.GAPS, Shape.SPARSE}) {
        long[] keys = SortedKeyColumns.keys(shape, 140_000, false, random);
        check(allocator, kind, keys, false, random, kind + " " + shape + " seed=" + seed);
      }
    }
  }

  @Test
  void smallNodesMakeDeepBPlusTrees() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    try (BufferAllocator allocator = new RootAllocator()) {
      long[] keys = SortedKeyColumns.keys(Shape.GAPS, 40_000, false, random);
      try (ArrowBuf buf = SortedKeyColumns.write(allocator, keys, false);
           BPlusTree tree = BPlusTree.build(SortedKeyColumns.column(buf, keys.length, false), allocator, THREADS,
               64)) {
        // 8 rows per leaf page, 3 entries per node: 5000 pages need 8 levels
        assertEquals(8, tree.height());
        assertEquals(tree.sizeBytes(), 64 * (1667 + 556 + 186 + 62 + 21 + 7 + 3 + 1));
        checkLookups(tree, keys, SortedKeyColumns.probes(keys, random), "64-byte nodes seed=" + seed);
      }
    }
  }

  /** A column of more rows than one build range, so the ranges' seams (spline points, checks) are crossed. */
  @Test
  void buildsOverSeveralRanges() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    int rows = (int) (2 * ParallelRanges.RANGE + 1000);
    long[] keys = SortedKeyColumns.keys(Shape.GAPS, rows, false, random);
    long[] probes = new long[60_000];
    for (int i = 0; i < probes.length; i++) {
      int seam = (int) ((i % 2 + 1) * ParallelRanges.RANGE) + (i / 2) % 2000 - 1000;
      probes[i] = i < 20_000 ? keys[seam] : i < 40_000 ? keys[seam] + 1 : keys[random.nextInt(rows)];
    }
    try (BufferAllocator allocator = new RootAllocator();
         ArrowBuf buf = SortedKeyColumns.write(allocator, keys, false)) {
      for (IndexKind kind : IndexKind.values()) {
        try (SortedKeyIndex index = kind.build(SortedKeyColumns.column(buf, rows, false), allocator, THREADS)) {
          checkLookups(index, keys, probes, kind + " seed=" + seed);
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void rejectsUnsortedAndDuplicateKeysNamingTheFirstBadRow(IndexKind kind) {
    try (BufferAllocator allocator = new RootAllocator()) {
      int rows = (int) ParallelRanges.RANGE + 1000;
      long[] keys = SortedKeyColumns.keys(Shape.DENSE, rows, false, new SplittableRandom(1));
      keys[rows - 10] = keys[rows - 11];  // a duplicate in the second range, found by another task than...
      keys[700] = keys[698];  // ...this earlier descent, which is the one reported
      try (ArrowBuf buf = SortedKeyColumns.write(allocator, keys, false)) {
        UnsortedKeysException e = assertThrows(UnsortedKeysException.class,
            () -> kind.build(SortedKeyColumns.column(buf, rows, false), allocator, THREADS));
        assertEquals(700, e.row());
        assertEquals("an index needs sorted, unique keys, but row 700 has key " + keys[698] + " after key "
            + keys[699] + " (descending)", e.getMessage());
        UnsortedKeysException duplicate = assertThrows(UnsortedKeysException.class,
            () -> kind.build(SortedKeyColumns.column(buf.slice(8L * 800, 8L * (rows - 800)), rows - 800, false),
                allocator, THREADS));
        assertEquals(rows - 10 - 800, duplicate.row());
        assertTrue(duplicate.getMessage().endsWith("(a duplicate)"), duplicate.getMessage());
      }
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }

  @Test
  void rejectsNullKeys() {
    try (BufferAllocator allocator = new RootAllocator(); BigIntVector vector = new BigIntVector("o_orderkey",
        allocator)) {
      vector.allocateNew(3);
      vector.set(0, 1);
      vector.setNull(1);
      vector.set(2, 3);
      vector.setValueCount(3);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SortedKeyColumn.of(vector));
      assertEquals("an index needs keys without NULL, but column o_orderkey has 1 NULLs in 3 rows", e.getMessage());
      vector.set(1, 2);
      try (SortedKeyIndex index = IndexKind.RADIXSPLINE.build(SortedKeyColumn.of(vector), allocator, THREADS)) {
        assertEquals(1, index.lookup(2));
      }
    }
  }

  private static void check(BufferAllocator allocator, IndexKind kind, long[] keys, boolean ints,
      SplittableRandom random, String what) {
    long[] probes = SortedKeyColumns.probes(keys, random);
    try (ArrowBuf buf = SortedKeyColumns.write(allocator, keys, ints);
         SortedKeyIndex index = kind.build(SortedKeyColumns.column(buf, keys.length, ints), allocator, THREADS)) {
      assertEquals(kind, index.kind(), what);
      assertEquals(keys.length, index.column().rows(), what);
      assertTrue(kind == IndexKind.BINARY_SEARCH ? index.sizeBytes() == 0 : index.sizeBytes() > 0
          || keys.length == 0, what);
      checkLookups(index, keys, probes, what);
    }
  }

  private static void checkLookups(SortedKeyIndex index, long[] keys, long[] probes, String what) {
    long[] batch = new long[probes.length];
    index.lookup(probes, probes.length, batch);
    for (int i = 0; i < probes.length; i++) {
      long expected = SortedKeyColumns.reference(keys, probes[i]);
      long single = index.lookup(probes[i]);
      if (single != expected || batch[i] != expected) {
        throw new AssertionError(what + ": lookup(" + probes[i] + ") gave " + single + ", in a batch " + batch[i]
            + ", expected " + expected);
      }
    }
  }
}
