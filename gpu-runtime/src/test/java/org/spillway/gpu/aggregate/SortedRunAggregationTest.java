package org.spillway.gpu.aggregate;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.vector.IndexedColumns;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The aggregation over sorted runs against the hash aggregation ({@link PartitionedAggregation}) of the same pipeline
 * on random clustered inputs of several morsels and batches: runs that cross morsel and batch boundaries, one run over
 * everything, all keys distinct, NULL keys among the others, morsels a filter leaves empty, a join probe that cuts
 * morsels into parts; and keys out of order, inside a morsel or between morsels, which must fall back to hashing.
 * Calls: SUM, COUNT(*), COUNT, MIN, MAX over doubles and a wide (128-bit) SUM.
 */
class SortedRunAggregationTest {
  /** Input: key (INT64, clustered), value (INT64, NULLs), ratio (FLOAT64), amount (DECIMAL(2)), band (INT64). */
  private static final List<ExprType> TYPES = List.of(ExprType.INT64, ExprType.INT64, ExprType.FLOAT64,
      ExprType.decimal(2), ExprType.INT64);
  private static final List<AggCall> CALLS = List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64),
      new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64),
      new AggCall(AggCall.Kind.MIN, 1, ExprType.INT64), new AggCall(AggCall.Kind.MAX, 2, ExprType.FLOAT64),
      AggCall.wideSum(AggCall.Kind.SUM, 3));
  private static final int MORSEL = MorselScheduler.MORSEL_ROWS;

  private enum Shape { MIXED_RUNS, ONE_RUN, ALL_DISTINCT, NULL_KEYS }

  @Test void clusteredKeysAggregateAsTheHashAggregationDoes() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (Shape shape : Shape.values()) {
      for (boolean filtered : new boolean[] {false, true}) {
        List<ColumnBatch> input = batches(random, shape, keys(random, shape, 2 * MORSEL + random.nextInt(MORSEL)));
        List<PipelineStage> stages = new ArrayList<>();
        if (filtered) {
          // drops every third batch (band 1): its morsels end up empty
          stages.add(new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.NE, new Expr.Column(4, ExprType.INT64),
              new Expr.Literal(1L, ExprType.INT64))));
        }
        checkAgainstHash(input, stages, 0, 1 + random.nextInt(4), "sorted runs",
            "seed " + seed + ", " + shape + (filtered ? ", filtered" : ""));
      }
    }
  }

  /**
   * A HAVING filter after the aggregation runs morsel by morsel over sorted runs: runs that cross morsel boundaries
   * (and morsels of one run in a chain) are whole before it judges them, the NULL group too; a filter that keeps none
   * gives an empty result of the aggregation's types. The rows equal the hash aggregation's, filtered after.
   */
  @Test void havingFiltersWholeGroupsMorselByMorsel() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    Expr count = new Expr.Column(2, ExprType.INT64);
    for (Shape shape : Shape.values()) {
      for (long threshold : new long[] {2, 40, 1L << 40}) {
        List<ColumnBatch> input = batches(random, shape, keys(random, shape, 2 * MORSEL + random.nextInt(MORSEL)));
        PipelineStage having = new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.GT, count,
            new Expr.Literal(threshold, ExprType.INT64)));
        int threads = 1 + random.nextInt(4);
        String where = "seed " + seed + ", " + shape + ", COUNT(*) > " + threshold + ", " + threads + " threads";
        List<String> expected = rows(runWithHaving(input, having, false, threads, null));
        String[] aggregated = new String[1];
        List<String> actual = rows(runWithHaving(input, having, true, threads, aggregated));
        assertEquals("sorted runs", aggregated[0], where);
        assertEquals(expected, actual, where);
        assertTrue(threshold < 1000 || actual.isEmpty(), where + ": nothing kept");
      }
    }
  }

  private static List<ColumnBatch> runWithHaving(List<ColumnBatch> input, PipelineStage having, boolean sorted,
      int threads, String[] aggregated) {
    ColumnarPipeline pipeline = new ColumnarPipeline(TYPES, List.of(new PipelineStage.Aggregate(new int[] {0}, CALLS,
        sorted), having));
    List<ColumnBatch> out = pipeline.runColumns(input, threads, () -> false);
    if (aggregated != null) {
      aggregated[0] = pipeline.lastAggregation();
    }
    return out;
  }

  @Test void joinProbeCutsMorselsIntoPartsThatKeepTheirOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<ColumnBatch> input = batches(random, Shape.MIXED_RUNS, keys(random, Shape.MIXED_RUNS, 2 * MORSEL + 123));
    // every key below 3000 twice on the build side, others never: morsels double (parts) or shrink
    int buildRows = 6000;
    long[] buildKeys = new long[buildRows];
    long[] payload = new long[buildRows];
    for (int i = 0; i < buildRows; i++) {
      buildKeys[i] = i % 3000;
      payload[i] = random.nextInt(100);
    }
    List<ExprType> buildTypes = List.of(ExprType.INT64, ExprType.INT64);
    ColumnVector[] build = {ColumnVector.ofLongs(ExprType.INT64, buildKeys, null, buildRows),
        ColumnVector.ofLongs(ExprType.INT64, payload, null, buildRows)};
    JoinProbe template = new JoinProbe(JoinProbe.Kind.INNER, new int[] {4}, List.of(ExprType.INT64), new int[] {0},
        buildTypes, false, null);
    IndexedColumns indexed = new IndexedColumns() {
      @Override public int rows() {
        return buildRows;
      }

      @Override public List<ExprType> types() {
        return buildTypes;
      }

      @Override public ColumnVector column(int c) {
        return build[c];
      }

      @Override public ColumnVector gather(int c, int[] ids, int count) {
        return build[c].gatherOrNull(ids, count);
      }
    };
    List<List<String>> none = Collections.nCopies(1, null);
    JoinProbe probe = template.bind(indexed, none, none, 2, () -> false);
    // the probe matches on the band column, here a copy of the key modulo 3500
    List<ColumnBatch> keyed = new ArrayList<>();
    for (ColumnBatch b : input) {
      long[] band = new long[b.rows()];
      for (int i = 0; i < b.rows(); i++) {
        band[i] = b.columns()[0].isNull(i) ? 0 : Math.floorMod(b.columns()[0].longs[i], 3500);
      }
      ColumnVector[] columns = b.columns().clone();
      columns[4] = ColumnVector.ofLongs(ExprType.INT64, band, null, b.rows());
      keyed.add(new ColumnBatch(columns, b.rows()));
    }
    checkAgainstHash(keyed, List.of(new PipelineStage.HashJoinProbe(probe)), 0, 3, "sorted runs", "seed " + seed);
  }

  @Test void keysOutOfOrderFallBackToHashing() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    // inside a morsel: two neighbouring keys swapped
    long[] keys = keys(random, Shape.MIXED_RUNS, 2 * MORSEL + 500);
    int at = random.nextInt(keys.length - 1);
    while (keys[at] == keys[at + 1]) {
      at = (at + 1) % (keys.length - 1);
    }
    long swap = keys[at];
    keys[at] = keys[at + 1];
    keys[at + 1] = swap;
    checkAgainstHash(batches(random, Shape.MIXED_RUNS, keys), List.of(), 0, 2, "hash: ",
        "seed " + seed + ", swapped at " + at);
    // between morsels: each morsel sorted, the second one below the first
    long[] descending = new long[2 * MORSEL];
    for (int i = 0; i < descending.length; i++) {
      descending[i] = (i < MORSEL ? 1_000_000 : 0) + i % MORSEL / 7;
    }
    checkAgainstHash(batches(random, Shape.ALL_DISTINCT, descending), List.of(), 0, 2, "hash: ",
        "seed " + seed + ", descending morsels");
  }

  @Test void sortedRunsNeedOneIntegralKey() {
    List<AggCall> count = List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64));
    assertThrows(IllegalArgumentException.class, () -> new PipelineStage.Aggregate(new int[] {0, 1}, count, true));
    assertThrows(IllegalArgumentException.class,
        () -> new ColumnarPipeline(TYPES, List.of(new PipelineStage.Aggregate(new int[] {2}, count, true))));
  }

  /**
   * Runs the stages and an aggregation grouped by {@code key} once over sorted runs and once by hashing, and
   * compares the rows; the sorted pipeline must report {@code how} (a prefix of its
   * {@link ColumnarPipeline#lastAggregation}).
   */
  private static void checkAgainstHash(List<ColumnBatch> input, List<PipelineStage> stages, int key, int threads,
      String how, String where) {
    List<String> expected = rows(run(input, stages, key, false, threads, null));
    String[] aggregated = new String[1];
    List<String> actual = rows(run(input, stages, key, true, threads, aggregated));
    assertTrue(aggregated[0].startsWith(how), where + ": aggregated by " + aggregated[0]);
    assertEquals(expected.size(), actual.size(), where + ": one row per group");
    assertEquals(expected, actual, where);
  }

  private static List<ColumnBatch> run(List<ColumnBatch> input, List<PipelineStage> stages, int key, boolean sorted,
      int threads, String[] aggregated) {
    List<PipelineStage> all = new ArrayList<>(stages);
    all.add(new PipelineStage.Aggregate(new int[] {key}, CALLS, sorted));
    ColumnarPipeline pipeline = new ColumnarPipeline(TYPES, all);
    List<ColumnBatch> out = pipeline.runColumns(input, threads, () -> false);
    if (aggregated != null) {
      aggregated[0] = pipeline.lastAggregation();
    }
    return out;
  }

  /** Clustered keys of the shape: non-decreasing, with runs of random lengths (up to several morsels). */
  private static long[] keys(Random random, Shape shape, int n) {
    long[] keys = new long[n];
    long key = random.nextInt(1000) - 500;
    int left = 0;
    for (int i = 0; i < n; i++) {
      if (shape == Shape.ONE_RUN) {
        keys[i] = 42;
        continue;
      }
      if (shape == Shape.ALL_DISTINCT || left-- <= 0) {
        key += 1 + random.nextInt(3);
        int r = random.nextInt(1000);
        left = r < 950 ? random.nextInt(8) : r < 998 ? random.nextInt(2000) : random.nextInt(3 * MORSEL);
      }
      keys[i] = key;
    }
    return keys;
  }

  /**
   * The rows in batches of random sizes (so runs also cross batch boundaries, and morsels end early at them); NULL
   * keys replace about one key in 50 for {@link Shape#NULL_KEYS}.
   */
  private static List<ColumnBatch> batches(Random random, Shape shape, long[] keys) {
    int n = keys.length;
    boolean[] keyNulls = new boolean[n];
    long[] values = new long[n];
    boolean[] valueNulls = new boolean[n];
    double[] ratios = new double[n];
    long[] amounts = new long[n];
    long[] bands = new long[n];
    for (int i = 0; i < n; i++) {
      keyNulls[i] = shape == Shape.NULL_KEYS && random.nextInt(50) == 0;
      values[i] = random.nextInt(2_000_000) - 1_000_000;
      valueNulls[i] = random.nextInt(10) == 0;
      ratios[i] = random.nextInt(64) * 0.25;
      amounts[i] = (random.nextBoolean() ? Long.MAX_VALUE : -Long.MAX_VALUE) / (1 + random.nextInt(3));
    }
    List<ColumnBatch> batches = new ArrayList<>();
    for (int from = 0; from < n; ) {
      int rows = Math.min(n - from, 1 + random.nextInt(2 * MORSEL));
      int to = from + rows;
      Arrays.fill(bands, from, to, batches.size() % 3);
      batches.add(new ColumnBatch(new ColumnVector[] {
          ColumnVector.ofLongs(ExprType.INT64, Arrays.copyOfRange(keys, from, to),
              Arrays.copyOfRange(keyNulls, from, to), rows),
          ColumnVector.ofLongs(ExprType.INT64, Arrays.copyOfRange(values, from, to),
              Arrays.copyOfRange(valueNulls, from, to), rows),
          ColumnVector.ofDoubles(Arrays.copyOfRange(ratios, from, to), null, rows),
          ColumnVector.ofLongs(ExprType.decimal(2), Arrays.copyOfRange(amounts, from, to), null, rows),
          ColumnVector.ofLongs(ExprType.INT64, Arrays.copyOfRange(bands, from, to), null, rows)}, rows));
      from = to;
    }
    return batches;
  }

  /** The rows as sorted text, the order an aggregation outputs its groups in being free. */
  private static List<String> rows(List<ColumnBatch> batches) {
    List<String> rows = new ArrayList<>();
    for (ColumnBatch batch : batches) {
      for (int r = 0; r < batch.rows(); r++) {
        StringBuilder row = new StringBuilder();
        for (ColumnVector column : batch.columns()) {
          row.append(column.isNull(r) ? "null" : column.longs != null ? String.valueOf(column.longs[r])
              : column.doubles != null ? String.valueOf(column.doubles[r]) : String.valueOf(column.objects[r]))
              .append('|');
        }
        rows.add(row.toString());
      }
    }
    Collections.sort(rows);
    return rows;
  }
}
