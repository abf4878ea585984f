package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Integers, decimals and dates observed row by row (no distinct values declared: a plain Parquet page's, a CSV's)
 * give the statistics a plain reference computes from the same values: NULL count, bounds, the sketch of every
 * value, and whether they ascend; for many distinct values and for few (whose estimate moves with each), values
 * repeated in the next row (which the sketch takes once), NULLs first, between and last, batches of NULLs only,
 * several batches observed by one collector and batches merged into a table.
 */
class PlainIntegerStatisticsTest {
  private static final List<ColumnDef> COLUMNS = List.of(ColumnDef.of("i", "INTEGER"), ColumnDef.of("b", "BIGINT"),
      ColumnDef.of("p", "DECIMAL(15,2)"), ColumnDef.of("d", "DATE"));

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  @Test
  void rowByRowGivesTheReferenceStatistics() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (ColumnDef column : COLUMNS) {
      for (Shape shape : Shape.values()) {
        List<Long[]> batches = new ArrayList<>();
        for (int b = 0; b < 4; b++) {
          batches.add(batch(random, b == 2 ? 0 : 1 + random.nextInt(20_000), shape, (b - 1) * 1_000_000L,
              b == 3 ? 1.0 : 0.1));
        }
        String what = column + ", " + shape + ", seed " + seed;
        ColumnStatistics expected = reference(column, batches);
        // one collector observing every batch in turn
        ColumnStatisticsCollector one = new ColumnStatisticsCollector(column, 100);
        for (Long[] batch : batches) {
          observe(one, column, batch);
        }
        assertEquals(expected, one.toStatistics(), what);
        // a collector per batch, merged into the table's at the batch's position, in any order
        ColumnStatisticsCollector table = new ColumnStatisticsCollector(column, 100);
        for (int b : new int[] {2, 0, 3, 1}) {
          ColumnStatisticsCollector collector = new ColumnStatisticsCollector(column, 100, true);
          observe(collector, column, batches.get(b));
          table.merge(collector, b);
        }
        assertEquals(expected, table.toStatistics(), what + ", merged");
      }
    }
  }

  /**
   * How a batch's values lie: ascending, each the last plus 0 to 2 (repeats in the next row); at random among many;
   * at random among 60 (where the linear-counting estimate moves with every distinct value, so that one missed
   * changes it).
   */
  private enum Shape { ASCENDING, MANY, FEW }

  /**
   * {@code rows} values from {@code base} on, of the shape, NULL with probability {@code nullShare} and always in the
   * first and last row; all NULL where {@code nullShare} is 1.
   */
  private static Long[] batch(Random random, int rows, Shape shape, long base, double nullShare) {
    Long[] values = new Long[rows];
    long last = base;
    for (int row = 0; row < rows; row++) {
      last += random.nextInt(3);
      boolean isNull = row == 0 || row == rows - 1 || random.nextDouble() < nullShare;
      values[row] = isNull ? null : switch (shape) {
        case ASCENDING -> last;
        case MANY -> base + random.nextInt(1_000_000) - 500_000;
        case FEW -> base + random.nextInt(60) - 30;
      };
    }
    return values;
  }

  private static void observe(ColumnStatisticsCollector collector, ColumnDef column, Long[] values) {
    try (BufferAllocator allocator = StorageAllocator.root().newChildAllocator("test", 0, Long.MAX_VALUE);
        FieldVector vector = ArrowFieldMapping.plainField(column).createVector(allocator)) {
      fill(vector, values);
      collector.observe(vector, values.length);
    }
  }

  /**
   * Sets a plain BIGINT, INTEGER or DATE vector to {@code values} (null: NULL), its value count included. The
   * statistics tests of other parts share it.
   */
  static void fill(FieldVector vector, Long[] values) {
    ((BaseFixedWidthVector) vector).allocateNew(Math.max(1, values.length));
    for (int row = 0; row < values.length; row++) {
      Long v = values[row];
      if (v == null) {
        vector.setNull(row);
      } else if (vector instanceof BigIntVector longs) {
        longs.set(row, v);
      } else if (vector instanceof DateDayVector days) {
        days.set(row, v.intValue());
      } else {
        ((IntVector) vector).set(row, v.intValue());
      }
    }
    vector.setValueCount(values.length);
  }

  /** The statistics of the batches' values, one after the other, computed plainly. */
  private static ColumnStatistics reference(ColumnDef column, List<Long[]> batches) {
    HyperLogLog sketch = new HyperLogLog();
    long nulls = 0;
    long count = 0;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    boolean ascending = true;
    Long last = null;
    for (Long[] batch : batches) {
      for (Long v : batch) {
        if (v == null) {
          nulls++;
          continue;
        }
        count++;
        sketch.addLong(v);
        min = Math.min(min, v);
        max = Math.max(max, v);
        ascending &= last == null || v >= last;
        last = v;
      }
    }
    return new ColumnStatistics(column.name(), ValueConversions.fromLong(column.type(), min),
        ValueConversions.fromLong(column.type(), max), nulls, Math.max(1, Math.min(count, sketch.estimate())),
        ascending);
  }
}
