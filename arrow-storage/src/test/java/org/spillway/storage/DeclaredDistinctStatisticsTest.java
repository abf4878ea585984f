package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * A batch of integers, decimals or dates whose distinct values are declared (as a Parquet dictionary tells them)
 * gets the statistics of observing every row: counts, bounds, distinct estimate, and the order, which still comes
 * from every row.
 */
class DeclaredDistinctStatisticsTest {
  private static final int ROWS = 5_000;

  /** Row i's value, or null: few distinct values, in order where {@code sorted}. */
  private static Long value(int i, boolean sorted) {
    return i % 13 == 0 ? null : sorted ? 19_000L + i / 97 : (i * 31L) % 53 - 20;
  }

  private static ColumnStatistics observed(ColumnDef column, boolean sorted, boolean declare) {
    ColumnStatisticsCollector collector = new ColumnStatisticsCollector(column, 100, true);
    try (BufferAllocator allocator = StorageAllocator.root().newChildAllocator("test", 0, Long.MAX_VALUE);
        FieldVector vector = ArrowFieldMapping.plainField(column).createVector(allocator)) {
      Long[] values = new Long[ROWS];
      for (int row = 0; row < ROWS; row++) {
        values[row] = value(row, sorted);
      }
      PlainIntegerStatisticsTest.fill(vector, values);
      long[] distinct = LongStream.range(0, ROWS).mapToObj(i -> value((int) i, sorted))
          .filter(v -> v != null).mapToLong(Long::longValue).distinct().toArray();
      // any order, a value listed twice
      long[] declared = LongStream.concat(Arrays.stream(distinct).map(v -> -v).sorted().map(v -> -v),
          LongStream.of(distinct[0])).toArray();
      collector.observe(vector, ROWS, declare ? declared : null);
    }
    return collector.toStatistics();
  }

  @Test
  void declaredValuesGiveTheStatisticsOfEveryRow() {
    for (ColumnDef column : List.of(ColumnDef.of("i", "INTEGER"), ColumnDef.of("b", "BIGINT"),
        ColumnDef.of("p", "DECIMAL(9,2)"), ColumnDef.of("d", "DATE"))) {
      for (boolean sorted : new boolean[] {true, false}) {
        ColumnStatistics rows = observed(column, sorted, false);
        assertEquals(rows, observed(column, sorted, true), column + ", sorted " + sorted);
        assertEquals(sorted, rows.sorted(), column.toString());
        assertEquals(ROWS / 13 + 1, rows.nullCount());
        assertTrue(rows.distinctCount() > 1, rows.toString());
      }
    }
  }
  /**
   * A value repeated in the next row (a sorted key's runs) is taken once for the bounds and the sketch, which gives
   * what taking every row gives: the sketch fed every row's value, the bounds of all rows.
   */
  @Test
  void repeatedValuesGiveTheSketchOfEveryRow() {
    for (boolean sorted : new boolean[] {true, false}) {
      ColumnDef column = ColumnDef.of("b", "BIGINT");
      HyperLogLog everyRow = new HyperLogLog();
      long count = 0;
      for (int row = 0; row < ROWS; row++) {
        Long v = value(row, sorted);
        if (v != null) {
          everyRow.addLong(v);
          count++;
        }
      }
      ColumnStatistics statistics = observed(column, sorted, false);
      assertEquals(Math.max(1, Math.min(count, everyRow.estimate())), statistics.distinctCount(), "sorted " + sorted);
      List<Long> values = LongStream.range(0, ROWS).mapToObj(i -> value((int) i, sorted)).filter(v -> v != null)
          .toList();
      assertEquals(java.util.Collections.min(values), ((Number) statistics.min()).longValue());
      assertEquals(java.util.Collections.max(values), ((Number) statistics.max()).longValue());
    }
  }

  /**
   * Declared batches merged into a table give the statistics of the same rows undeclared, and the order of all their
   * rows, though a declared batch stops looking at its order once it breaks: batches each in order, one after the
   * other or overlapping; a batch out of order early; a batch of NULLs only between.
   */
  @Test
  void declaredBatchesMergeToTheOrderOfEveryRow() {
    ColumnDef column = ColumnDef.of("b", "BIGINT");
    long[][][] tables = {
        {{1, 2, 2, 5}, {5, 7, 9}},  // in order across batches
        {{1, 2, 8}, {5, 7, 9}},  // each in order, overlapping
        {{3, 1, 2, 4}, {5, 6}},  // out of order at once
        {{1, 2}, {}, {3, 3}},  // a batch of NULLs only between
    };
    for (long[][] batches : tables) {
      ColumnStatistics[] results = new ColumnStatistics[2];
      for (int declare = 0; declare < 2; declare++) {
        ColumnStatisticsCollector table = new ColumnStatisticsCollector(column, 100);
        for (int b = 0; b < batches.length; b++) {
          ColumnStatisticsCollector batch = new ColumnStatisticsCollector(column, 100, true);
          try (BufferAllocator allocator = StorageAllocator.root().newChildAllocator("test", 0, Long.MAX_VALUE);
              BigIntVector vector = new BigIntVector("b", allocator)) {
            int rows = batches[b].length + 2;
            vector.allocateNew(rows);
            vector.setNull(0);  // NULLs first and last: they take no part in the order
            for (int i = 0; i < batches[b].length; i++) {
              vector.set(i + 1, batches[b][i]);
            }
            vector.setNull(rows - 1);
            vector.setValueCount(rows);
            batch.observe(vector, rows, declare == 1 ? Arrays.stream(batches[b]).distinct().toArray() : null);
          }
          table.merge(batch, b);
        }
        results[declare] = table.toStatistics();
      }
      assertEquals(results[0], results[1], Arrays.deepToString(batches));
      assertEquals(sortedOf(batches), results[0].sorted(), Arrays.deepToString(batches));
    }
    assertTrue(sortedOf(tables[0]) && !sortedOf(tables[1]) && !sortedOf(tables[2]) && sortedOf(tables[3]));
  }

  private static boolean sortedOf(long[][] batches) {
    long[] all = Arrays.stream(batches).flatMapToLong(Arrays::stream).toArray();
    for (int i = 1; i < all.length; i++) {
      if (all[i] < all[i - 1]) {
        return false;
      }
    }
    return true;
  }
}
