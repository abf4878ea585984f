package org.spillway.gpu.aggregate;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.Morsel;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Morsel-driven aggregation with flushed radix-partitioned runs against a HashMap reference on random rows: many
 * groups over several workers, flush limits small enough that every worker flushes (and reuses its table) many
 * times, NULL keys, one integer key (sparse and hashed, or dense and addressed directly, which never flushes),
 * several keys with text and doubles, and a global aggregate; checked SUM, wide SUM, COUNT, MIN, MAX.
 */
class PartitionedAggregationTest {
  /** Input: id (INT64, NULLs), tag (TEXT, NULLs), ratio (FLOAT64), value (INT64, NULLs), amount (DECIMAL(2)). */
  private static final List<ExprType> TYPES = List.of(ExprType.INT64, ExprType.TEXT, ExprType.FLOAT64,
      ExprType.INT64, ExprType.decimal(2));
  private static final List<AggCall> CALLS = List.of(new AggCall(AggCall.Kind.SUM, 3, ExprType.INT64),
      new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, 3, ExprType.INT64),
      new AggCall(AggCall.Kind.MIN, 3, ExprType.INT64), new AggCall(AggCall.Kind.MAX, 2, ExprType.FLOAT64),
      AggCall.wideSum(AggCall.Kind.SUM, 4));

  @Test void flushedRunsMergeAsOneTableWould() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int[][] keySets = {{0}, {0, 1}, {2, 1, 0}, {}};
    for (int trial = 0; trial < keySets.length * 3; trial++) {
      int[] keys = keySets[trial % keySets.length];
      int flushGroups = trial % 2 == 0 ? 64 + random.nextInt(500) : PartitionedAggregation.FLUSH_GROUPS;
      long spread = trial < keySets.length * 2 ? 1_000_003L : 1;  // ids too wide for direct addressing, or dense
      int workers = 1 + random.nextInt(3);
      int distinct = 1 + random.nextInt(40_000);
      PipelineStage.Aggregate stage = new PipelineStage.Aggregate(keys, CALLS);
      PartitionedAggregation[] locals = new PartitionedAggregation[workers];
      for (int w = 0; w < workers; w++) {
        locals[w] = new PartitionedAggregation(groups -> new HashAggregator(TYPES, stage, groups), flushGroups);
      }
      Map<List<Object>, Object[]> expected = new HashMap<>();
      for (int morsel = 0; morsel < 12; morsel++) {
        ColumnVector[] columns = randomMorsel(random, random.nextInt(5000), distinct, spread, keys, expected);
        locals[random.nextInt(workers)].add(Morsel.ofColumns(columns, columns[0].size));
      }
      if (keys.length == 0 && expected.isEmpty()) {
        expected.put(List.of(), new Object[] {null, 0L, 0L, null, null, null});
      }
      ColumnVector[] out = PartitionedAggregation.merge(locals, () -> false);
      String where = "seed " + seed + ", trial " + trial + ", keys " + Arrays.toString(keys) + ", flush at "
          + flushGroups + ", " + workers + " workers, ids spread " + spread;
      int rows = out[0].size;
      assertEquals(expected.size(), rows, where + ": one row per group");
      for (int r = 0; r < rows; r++) {
        List<Object> key = new ArrayList<>();
        for (int k = 0; k < keys.length; k++) {
          key.add(value(out[k], r));
        }
        Object[] acc = expected.get(key);
        assertTrue(acc != null, where + ": unexpected group " + key);
        for (int c = 0; c < CALLS.size(); c++) {
          assertEquals(acc[c], value(out[keys.length + c], r), where + ", group " + key + ", " + CALLS.get(c));
        }
      }
    }
  }

  /**
   * Workers whose tables address dense keys directly (and so never flush) merge by key range; workers whose dense
   * ranges lie too far apart to share a range fall back to the partitioned merge. Each worker covers its own window
   * of keys, partly shared with the others', a few keys beyond it, and NULL keys.
   */
  @Test void directlyAddressedWorkersMergeByKeyRange() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<AggCall> calls = List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
        new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64));
    List<ExprType> types = List.of(ExprType.INT64, ExprType.INT64);
    PipelineStage.Aggregate stage = new PipelineStage.Aggregate(new int[] {0}, calls);
    for (long apart : new long[] {0, 1L << 40}) {
      int workers = 3;
      PartitionedAggregation[] locals = new PartitionedAggregation[workers];
      Map<Long, long[]> expected = new HashMap<>();
      for (int w = 0; w < workers; w++) {
        locals[w] = new PartitionedAggregation(groups -> new HashAggregator(types, stage, groups), 64);
        long window = w * apart - 20_000 + (5_000 + random.nextInt(10_000)) * (long) w;  // overlapping, 40 K+ wide
        for (int morsel = 0; morsel < 3; morsel++) {
          int n = 20_000 + random.nextInt(5000);
          long[] ids = new long[n];
          boolean[] nulls = new boolean[n];
          long[] values = new long[n];
          for (int i = 0; i < n; i++) {
            // the last morsel adds a few keys beyond the window: slices of the merge that are too sparse for a table
            // that addresses them directly
            boolean beyond = morsel == 2 && random.nextInt(1000) == 0;
            ids[i] = window + (beyond ? 30_000 + random.nextInt(60_000) : random.nextInt(30_000));
            nulls[i] = random.nextInt(500) == 0;
            values[i] = random.nextInt(1000);
            long[] acc = expected.computeIfAbsent(nulls[i] ? null : ids[i], k -> new long[2]);
            acc[0]++;
            acc[1] += values[i];
          }
          locals[w].add(Morsel.ofColumns(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, nulls, n),
              ColumnVector.ofLongs(ExprType.INT64, values, null, n)}, n));
        }
      }
      String where = "seed " + seed + ", windows " + apart + " apart";
      assertTrue(PartitionedAggregation.mergesByKeyRange(locals), where + ": every worker addresses its keys directly");
      ColumnVector[] out = PartitionedAggregation.merge(locals, () -> false);
      assertTrue(expected.size() > PartitionedAggregation.PARTITIONED_MERGE_GROUPS, where + ": a parallel merge");
      assertEquals(expected.size(), out[0].size, where + ": one row per group");
      for (int r = 0; r < out[0].size; r++) {
        Long key = (Long) value(out[0], r);
        long[] acc = expected.get(key);
        assertTrue(acc != null, where + ": unexpected group " + key);
        assertEquals(acc[0], value(out[1], r), where + ", count of " + key);
        assertEquals(acc[1], value(out[2], r), where + ", sum of " + key);
      }
    }
  }

  /**
   * Workers whose keys are random over a range from their first morsel on (a GROUP BY o_custkey over orders) address
   * them directly when each table knows the rows it is to take, and merge by key range; without that, the same rows
   * go to hashing and the partitioned merge. Both give the reference's groups.
   */
  @Test void workersThatKnowTheirRowsAddressRandomKeysDirectly() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<AggCall> calls = List.of(new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64));
    List<ExprType> types = List.of(ExprType.INT64, ExprType.INT64);
    PipelineStage.Aggregate stage = new PipelineStage.Aggregate(new int[] {0}, calls);
    int workers = 3;
    int morsels = 6;
    int n = 4096;
    int range = 60_000;  // wider than 4 keys per row of a first morsel, narrower than 4 per row of a worker's share
    for (long workerRows : new long[] {0, (long) morsels * n}) {
      PartitionedAggregation[] locals = new PartitionedAggregation[workers];
      Map<Long, Long> expected = new HashMap<>();
      for (int w = 0; w < workers; w++) {
        locals[w] = new PartitionedAggregation(new HashAggregator(types, stage, 16, workerRows),
            groups -> new HashAggregator(types, stage, groups), PartitionedAggregation.FLUSH_GROUPS);
        for (int morsel = 0; morsel < morsels; morsel++) {
          long[] ids = new long[n];
          boolean[] nulls = new boolean[n];
          long[] values = new long[n];
          boolean[] valueNulls = new boolean[n];
          for (int i = 0; i < n; i++) {
            ids[i] = 1 + random.nextInt(range);
            nulls[i] = random.nextInt(300) == 0;
            valueNulls[i] = random.nextInt(10) == 0;
            expected.merge(nulls[i] ? null : ids[i], valueNulls[i] ? 0L : 1L, Long::sum);
          }
          locals[w].add(Morsel.ofColumns(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, nulls, n),
              ColumnVector.ofLongs(ExprType.INT64, values, valueNulls, n)}, n));
        }
      }
      String where = "seed " + seed + ", " + workerRows + " rows per worker expected";
      assertEquals(workerRows > 0, PartitionedAggregation.mergesByKeyRange(locals), where + ": addressed directly");
      ColumnVector[] out = PartitionedAggregation.merge(locals, () -> false);
      assertEquals(expected.size(), out[0].size, where + ": one row per group");
      for (int r = 0; r < out[0].size; r++) {
        Long key = (Long) value(out[0], r);
        assertTrue(expected.containsKey(key), where + ": unexpected group " + key);
        assertEquals(expected.get(key), value(out[1], r), where + ", count of " + key);
      }
    }
  }

  /** A morsel of random rows over about {@code distinct} keys, folded into the reference as it is made. */
  private static ColumnVector[] randomMorsel(Random random, int n, int distinct, long spread, int[] keys,
      Map<List<Object>, Object[]> expected) {
    long[] ids = new long[n];
    boolean[] idNulls = new boolean[n];
    Object[] tags = new Object[n];
    boolean[] tagNulls = new boolean[n];
    double[] ratios = new double[n];
    long[] values = new long[n];
    boolean[] valueNulls = new boolean[n];
    long[] amounts = new long[n];
    for (int i = 0; i < n; i++) {
      long id = random.nextInt(distinct);
      idNulls[i] = random.nextInt(200) == 0;
      ids[i] = id * spread;
      tagNulls[i] = random.nextInt(100) == 0;
      tags[i] = tagNulls[i] ? null : "t" + id % 7;
      ratios[i] = (id % 5) * 0.25;
      valueNulls[i] = random.nextInt(10) == 0;
      values[i] = random.nextInt(2_000_000) - 1_000_000;
      amounts[i] = (random.nextBoolean() ? Long.MAX_VALUE : -Long.MAX_VALUE) / (1 + random.nextInt(3));
      Object[] row = {idNulls[i] ? null : ids[i], tags[i], ratios[i] + 0.0};
      List<Object> key = new ArrayList<>();
      for (int k : keys) {
        key.add(row[k]);
      }
      Object[] acc = expected.computeIfAbsent(key, k -> new Object[] {null, 0L, 0L, null, null, null});
      if (!valueNulls[i]) {
        acc[0] = acc[0] == null ? values[i] : (Long) acc[0] + values[i];
        acc[2] = (Long) acc[2] + 1;
        acc[3] = acc[3] == null ? values[i] : Math.min((Long) acc[3], values[i]);
      }
      acc[1] = (Long) acc[1] + 1;
      acc[4] = acc[4] == null ? ratios[i] : Math.max((Double) acc[4], ratios[i]);
      BigDecimal amount = new BigDecimal(BigInteger.valueOf(amounts[i]), 2);
      acc[5] = acc[5] == null ? amount : ((BigDecimal) acc[5]).add(amount);
    }
    return new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, idNulls, n),
        ColumnVector.ofObjects(ExprType.TEXT, tags, tagNulls, n), ColumnVector.ofDoubles(ratios, null, n),
        ColumnVector.ofLongs(ExprType.INT64, values, valueNulls, n),
        ColumnVector.ofLongs(ExprType.decimal(2), amounts, null, n)};
  }

  private static Object value(ColumnVector column, int row) {
    if (column.isNull(row)) {
      return null;
    }
    return column.longs != null ? (Object) column.longs[row] : column.doubles != null ? (Object) column.doubles[row]
        : column.objects[row];
  }
}
