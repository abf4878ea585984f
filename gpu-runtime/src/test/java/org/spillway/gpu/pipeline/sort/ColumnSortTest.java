package org.spillway.gpu.pipeline.sort;

import org.junit.jupiter.api.Test;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The columnar sort against a reference: Java's stable list sort with a comparator built from boxed values. */
class ColumnSortTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT32, ExprType.INT64, ExprType.decimal(2),
      ExprType.FLOAT64, ExprType.DATE, ExprType.BOOLEAN, ExprType.STRING, ExprType.TEXT, ExprType.BIG_DECIMAL);

  @Test void smallRandomInputsMatchTheReference() {
    Random random = new Random(13);
    for (int round = 0; round < 300; round++) {
      int rows = random.nextInt(120);
      check(random, batches(random, rows, 1 + random.nextInt(3)), 1 + random.nextInt(4));
    }
  }

  /** Enough rows for several workers, each sorting a run (or keeping a bounded heap) before the runs merge. */
  @Test void largeInputsSortInParallelRunsAndMerge() {
    Random random = new Random(7);
    for (int round = 0; round < 2; round++) {
      check(random, batches(random, 3 * ColumnSort.PARALLEL_ROWS + random.nextInt(1000), 3), 4);
    }
  }

  /**
   * One key of the long lane (the radix sort's case): values over the whole 64-bit range (the extremes, negatives,
   * values equal but in one byte) and many ties, with and without NULLs, each direction and NULL placement, with and
   * without a fetch, up to and past {@link ColumnSort#RADIX_ROWS}; and BIG_DECIMAL keys, which sort as their unscaled
   * longs.
   */
  @Test void oneKeyOfTheLongLaneSortsAsTheComparatorDoes() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<ExprType> types = List.of(ExprType.INT64, ExprType.BIG_DECIMAL, ExprType.INT32);
    for (int round = 0; round < 24; round++) {
      int rows = round == 0 ? ColumnSort.RADIX_ROWS + 1 + random.nextInt(100) : random.nextInt(round < 12 ? 50 : 20_000);
      long[] pick = {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1, 1L << 40, -(1L << 40), 255, 256};
      boolean nulls = random.nextBoolean();
      long[] wide = new long[rows];
      Object[] decimals = new Object[rows];
      long[] payload = new long[rows];
      boolean[] nullFlags = nulls ? new boolean[rows] : null;
      for (int r = 0; r < rows; r++) {
        wide[r] = random.nextInt(3) == 0 ? pick[random.nextInt(pick.length)]
            : random.nextBoolean() ? random.nextLong() : random.nextInt(50);
        decimals[r] = BigDecimal.valueOf(random.nextInt(2000) - 1000, random.nextInt(3));
        payload[r] = r;
        if (nulls && random.nextInt(7) == 0) {
          nullFlags[r] = true;
          decimals[r] = null;
        }
      }
      ColumnBatch batch = new ColumnBatch(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, wide, nullFlags, rows),
          ColumnVector.ofObjects(ExprType.BIG_DECIMAL, decimals, nullFlags, rows),
          ColumnVector.ofLongs(ExprType.INT32, payload, null, rows)}, rows);
      SortKey key = new SortKey(random.nextInt(2), random.nextBoolean(), random.nextBoolean());
      long fetch = random.nextBoolean() ? random.nextInt(30) : -1;
      List<List<Object>> expected = new ArrayList<>(rows(List.of(batch)));
      expected.sort(reference(List.of(key)));
      expected = expected.subList(0, fetch < 0 ? rows : (int) Math.min(rows, fetch));
      List<ColumnBatch> out = new ColumnSort(types, List.of(key), 0, fetch).run(List.of(batch), 4, () -> false);
      assertEquals(expected, rows(out), "seed " + seed + ", round " + round + ", " + key + ", fetch " + fetch);
    }
  }

  @Test void topNOfManyRowsKeepsTheBestInOrder() {
    Random random = new Random(3);
    List<ColumnBatch> input = batches(random, 2 * ColumnSort.PARALLEL_ROWS, 2);
    List<SortKey> keys = List.of(new SortKey(3, true, true), SortKey.ascending(1));
    for (long[] offsetFetch : new long[][] {{0, 1}, {0, 10}, {5, 20}, {0, 0}, {1_000_000, 5}}) {
      checkAgainstReference(input, keys, offsetFetch[0], offsetFetch[1], 4);
    }
  }

  /**
   * A top-N of many rows reads its other columns only at the rows it keeps, across batches of every size (empty ones
   * among them), in the order of the keys.
   */
  @Test void topNReadsTheOtherColumnsAcrossBatches() {
    Random random = new Random(11);
    List<ColumnBatch> input = new ArrayList<>();
    for (int b = 0; b < 12; b++) {
      input.addAll(batches(random, b % 4 == 1 ? 0 : random.nextInt(400), 1));
    }
    for (List<SortKey> keys : List.of(List.of(SortKey.ascending(7)), List.of(new SortKey(2, true, false),
        SortKey.ascending(0)))) {
      for (long[] offsetFetch : new long[][] {{0, 1}, {0, 25}, {3, 40}}) {
        checkAgainstReference(input, keys, offsetFetch[0], offsetFetch[1], 3);
      }
    }
  }

  @Test void withoutKeysOffsetAndFetchKeepTheInputOrder() {
    Random random = new Random(5);
    List<ColumnBatch> input = batches(random, 50, 3);
    checkAgainstReference(input, List.of(), 7, 10, 2);
    checkAgainstReference(input, List.of(), 45, -1, 2);
    assertTrue(new ColumnSort(TYPES, List.of(), 60, -1).run(input, 2, () -> false).isEmpty());
  }

  /** -0.0 before 0.0 and NaN after every number; BIG_DECIMALs of different scales compare as numbers. */
  @Test void floatsAndBigDecimalsInSqlOrder() {
    double[] doubles = {Double.NaN, 0.0, -0.0, Double.NEGATIVE_INFINITY, 1.5};
    ColumnVector d = ColumnVector.ofDoubles(doubles, null, doubles.length);
    Object[] decimals = {new BigDecimal("1.00"), new BigDecimal("0.5"), new BigDecimal("1.0"), null,
        new BigDecimal("-2")};
    boolean[] nulls = {false, false, false, true, false};
    ColumnVector b = ColumnVector.ofObjects(ExprType.BIG_DECIMAL, decimals, nulls, decimals.length);
    List<ColumnBatch> in = List.of(new ColumnBatch(new ColumnVector[] {d, b}, 5));
    ColumnSort byDouble = new ColumnSort(List.of(ExprType.FLOAT64, ExprType.BIG_DECIMAL),
        List.of(SortKey.ascending(0)), 0, -1);
    ColumnVector sorted = byDouble.run(in, 1, () -> false).get(0).columns()[0];
    assertEquals("[-Infinity, -0.0, 0.0, 1.5, NaN]", java.util.Arrays.toString(sorted.doubles));
    ColumnSort byDecimal = new ColumnSort(List.of(ExprType.FLOAT64, ExprType.BIG_DECIMAL),
        List.of(new SortKey(1, true, true)), 0, -1);
    ColumnVector sortedDecimals = byDecimal.run(in, 1, () -> false).get(0).columns()[1];
    // 1.00 and 1.0 tie and keep their input order
    assertEquals("[null, 1.00, 1.0, 0.5, -2]", java.util.Arrays.toString(sortedDecimals.objects));
  }

  /**
   * Several keys of the long lane and text (Q16's count, brand, type and size) pack into one word per row and sort by
   * a radix sort of the words ({@link NormalizedKeys}): against the reference, with NULLs either side, each direction,
   * and inputs past {@link ColumnSort#PARALLEL_ROWS} (where the comparator's runs would otherwise split).
   */
  @Test void packedKeysSortAsTheComparatorDoes() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int[] packable = {0, 1, 2, 4, 5, 6, 7, 8};  // every type but FLOAT64
    for (int round = 0; round < 60; round++) {
      int rows = round < 30 ? 2 + random.nextInt(200) : random.nextInt(3 * ColumnSort.PARALLEL_ROWS);
      List<ColumnBatch> input = batches(random, rows, 1 + random.nextInt(3));
      List<SortKey> keys = new ArrayList<>();
      for (int k = 2 + random.nextInt(3); k > 0; k--) {
        keys.add(new SortKey(packable[random.nextInt(packable.length)], random.nextBoolean(), random.nextBoolean()));
      }
      long fetch = random.nextBoolean() ? -1 : rows / 4 + random.nextInt(10);
      checkAgainstReference(input, keys, random.nextInt(4) == 0 ? random.nextInt(5) : 0, fetch,
          1 + random.nextInt(4));
    }
    // Q16's shape packs: a count descending, two text keys of few strings, an integer
    List<ColumnBatch> q16 = batches(new Random(seed + 1), 5000, 1);
    ColumnVector[] columns = q16.get(0).columns();
    List<SortKey> keys = List.of(new SortKey(0, true, false), new SortKey(7, false, false),
        new SortKey(6, false, false), new SortKey(4, false, false));
    ColumnVector[] text = columns.clone();
    Object[] brands = new Object[5000];
    for (int r = 0; r < brands.length; r++) {
      brands[r] = "Brand#" + (r % 25);
    }
    text[7] = ColumnVector.ofObjects(ExprType.TEXT, brands, null, 5000);
    assertTrue(NormalizedKeys.words(new RowComparator(text, keys), keys, 5000) != null,
        "the keys of Q16's shape pack into one word (seed " + seed + ")");
  }

  private static void check(Random random, List<ColumnBatch> input, int threads) {
    List<SortKey> keys = new ArrayList<>();
    for (int k = random.nextInt(4); k > 0; k--) {
      keys.add(new SortKey(random.nextInt(TYPES.size()), random.nextBoolean(), random.nextBoolean()));
    }
    long offset = random.nextInt(4) == 0 ? random.nextInt(30) : 0;
    long fetch = random.nextBoolean() ? random.nextInt(40) : -1;
    checkAgainstReference(input, keys, offset, fetch, threads);
  }

  private static void checkAgainstReference(List<ColumnBatch> input, List<SortKey> keys, long offset, long fetch,
      int threads) {
    List<List<Object>> rows = rows(input);
    List<List<Object>> expected = new ArrayList<>(rows);
    expected.sort(reference(keys));  // stable: ties keep the input order
    int from = (int) Math.min(offset, expected.size());
    int to = fetch < 0 ? expected.size() : (int) Math.min(expected.size(), offset + fetch);
    expected = expected.subList(from, Math.max(from, to));
    List<ColumnBatch> out = new ColumnSort(TYPES, keys, offset, fetch).run(input, threads, () -> false);
    assertEquals(expected, rows(out), () -> "keys " + keys + " offset " + offset + " fetch " + fetch);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Comparator<List<Object>> reference(List<SortKey> keys) {
    Comparator<List<Object>> order = (a, b) -> 0;
    for (SortKey key : keys) {
      Comparator<Comparable> natural = Comparator.naturalOrder();
      Comparator<Comparable> direction = key.descending() ? natural.reversed() : natural;
      Comparator<Comparable> withNulls = key.nullsFirst() ? Comparator.nullsFirst(direction)
          : Comparator.nullsLast(direction);
      order = order.thenComparing(row -> (Comparable) row.get(key.column()), withNulls);
    }
    return order;
  }

  private static List<List<Object>> rows(List<ColumnBatch> batches) {
    List<List<Object>> rows = new ArrayList<>();
    for (ColumnBatch b : batches) {
      for (int r = 0; r < b.rows(); r++) {
        List<Object> row = new ArrayList<>();
        for (ColumnVector c : b.columns()) {
          row.add(c.isNull(r) ? null : c.doubles != null ? (Object) c.doubles[r]
              : c.objects != null ? c.objects[r] : (Object) c.longs[r]);
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** Rows of every type, few distinct values (many ties) and some NULLs, split into batches. */
  private static List<ColumnBatch> batches(Random random, int rows, int count) {
    List<ColumnBatch> out = new ArrayList<>();
    for (int b = 0; b < count; b++) {
      int n = (int) ((long) rows * (b + 1) / count - (long) rows * b / count);
      ColumnVector[] columns = new ColumnVector[TYPES.size()];
      for (int c = 0; c < columns.length; c++) {
        columns[c] = column(random, TYPES.get(c), n);
      }
      out.add(new ColumnBatch(columns, n));
    }
    return out;
  }

  private static ColumnVector column(Random random, ExprType type, int n) {
    boolean[] nulls = random.nextBoolean() ? new boolean[n] : null;
    int distinct = 1 + random.nextInt(random.nextBoolean() ? 5 : 1000);
    long[] longs = new long[n];
    double[] doubles = new double[n];
    Object[] objects = new Object[n];
    for (int r = 0; r < n; r++) {
      boolean isNull = nulls != null && random.nextInt(6) == 0;
      int v = random.nextInt(distinct) - distinct / 2;
      switch (type.kind()) {
        case FLOAT64 -> doubles[r] = isNull ? 0 : v == 0 && random.nextBoolean() ? -0.0
            : v == 1 ? Double.NaN : v / 4.0;
        case TEXT -> objects[r] = isNull ? null : "t" + Math.abs(v) + (v < 0 ? "x" : "");
        case BIG_DECIMAL -> objects[r] = isNull ? null : BigDecimal.valueOf(v, random.nextInt(3));
        case BOOLEAN -> longs[r] = isNull ? 0 : v & 1;
        case STRING -> longs[r] = isNull ? 0 : Math.abs(v);
        default -> longs[r] = isNull ? 0 : v;
      }
      if (isNull) {
        nulls[r] = true;
      }
    }
    return switch (type.kind()) {
      case FLOAT64 -> ColumnVector.ofDoubles(doubles, nulls, n);
      case TEXT, BIG_DECIMAL -> ColumnVector.ofObjects(type, objects, nulls, n);
      default -> ColumnVector.ofLongs(type, longs, nulls, n);
    };
  }
}
