package org.spillway.storage.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.Catalog;
import org.spillway.storage.TestTables;

/**
 * A thread's row-group arrays: taken within a scope, free again once it closes and handed out for the next scope's
 * requests of their size class; new outside a scope and for small sizes; at most the kept bytes stay free. A file
 * whose later row groups have smaller chunks and pages than its first (read on one thread, into the first's arrays,
 * whose old bytes lie past the new ones) reads back exactly.
 */
class RowGroupBuffersTest {
  @TempDir
  Path dir;

  @Test
  void arraysOfAClosedScopeServeTheNextOne() throws Exception {
    onFreshThread(() -> {
      byte[] outside = RowGroupBuffers.take(100_000);
      assertEquals(100_000, outside.length, "outside a scope: a new array of the size");
      assertNotSame(outside, RowGroupBuffers.take(100_000));
      byte[] first;
      byte[] small;
      try (RowGroupBuffers.Scope scope = RowGroupBuffers.scope()) {
        first = RowGroupBuffers.take(100_000);
        assertEquals(RowGroupBuffers.sizeClass(100_000), first.length);
        assertNotSame(first, RowGroupBuffers.take(100_000), "an array is taken once per scope");
        small = RowGroupBuffers.take(100);
        assertEquals(100, small.length);
        assertThrows(IllegalStateException.class, RowGroupBuffers::scope);
      }
      assertEquals(2L * first.length, RowGroupBuffers.freeBytesOfThread());
      try (RowGroupBuffers.Scope scope = RowGroupBuffers.scope()) {
        byte[] again = RowGroupBuffers.take(99_000);  // another size of the same class
        assertTrue(again == first || again.length == first.length, "a free array of the class");
        assertEquals(first.length, again.length);
        assertNotSame(small, RowGroupBuffers.take(100), "small arrays are not pooled");
        assertEquals(first.length, RowGroupBuffers.freeBytesOfThread());
      }
      // more than the kept bytes taken at once: the free ones stop at the limit
      try (RowGroupBuffers.Scope scope = RowGroupBuffers.scope()) {
        for (int i = 0; i < 10; i++) {
          RowGroupBuffers.take(10 << 20);
        }
      }
      assertTrue(RowGroupBuffers.freeBytesOfThread() <= RowGroupBuffers.KEPT_BYTES);
      assertTrue(RowGroupBuffers.freeBytesOfThread() > RowGroupBuffers.KEPT_BYTES - (12 << 20));
    });
  }

  @Test
  void sizeClassesRoundUpByAtMostAnEighth() {
    for (int size : new int[] {1, 7, 8, 9, 65_536, 65_537, 100_000, 3_755_274, 3_750_559, Integer.MAX_VALUE - 8}) {
      int rounded = RowGroupBuffers.sizeClass(size);
      assertTrue(rounded >= size && rounded - size <= size / 8, size + " -> " + rounded);
    }
    assertEquals(RowGroupBuffers.sizeClass(3_755_274), RowGroupBuffers.sizeClass(3_750_559));
  }

  @Test
  void laterSmallerRowGroupsReadBackExactly() throws Exception {
    String schema = "message m { required int32 id; optional binary s (STRING); required int64 n; }";
    int rows = 30_000;
    int rowGroup = 10_000;
    // each row group's text a little shorter than the last one's (its pages of the same size class, so that they
    // are read into the last one's arrays), NULLs between; a few distinct values, so that dictionary layouts keep a
    // dictionary
    java.util.function.IntFunction<String> value = i -> i % 13 == 5 ? null
        : "row group " + i / rowGroup + " " + "x".repeat(100 - 3 * (i / rowGroup)) + (i % 50);
    java.util.function.BiConsumer<Integer, Group> fill = (i, row) -> {
      row.add("id", i);
      if (value.apply(i) != null) {
        row.add("s", value.apply(i));
      }
      row.add("n", (long) i * (i % 2 == 0 ? 1 : -1));
    };
    for (CompressionCodecName codec : List.of(CompressionCodecName.UNCOMPRESSED, CompressionCodecName.SNAPPY)) {
      for (boolean dictionary : new boolean[] {false, true}) {
        String name = codec + "-" + dictionary;
        Path file = ParquetTestFiles.write(dir.resolve(name + ".parquet"), schema,
            new ParquetTestFiles.Layout(codec, dictionary, rowGroup), rows, fill);
        long reusedBefore = RowGroupBuffers.reusedArrays();
        try (Catalog catalog = Catalog.create(dir.resolve(name))) {
          List<List<Object>> values = TestTables.rows(TableImport.run(catalog, "t", List.of(file),
              ImportOptions.defaults().withThreads(1)).table());
          for (int i = 0; i < rows; i++) {
            assertEquals(Arrays.asList(i, value.apply(i), (long) i * (i % 2 == 0 ? 1 : -1)), values.get(i),
                name + ", row " + i);
          }
        }
        assertTrue(RowGroupBuffers.reusedArrays() > reusedBefore, name + ": arrays of a row group read again");
      }
    }
  }

  private static void onFreshThread(ThrowingRunnable test) throws Exception {
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      thread.submit(() -> {
        test.run();
        return null;
      }).get();
    } finally {
      thread.shutdown();
    }
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
