package org.spillway.gpu.pipeline.cpu;

import org.spillway.gpu.aggregate.PartitionedAggregation;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.RandomExprs;
import org.spillway.gpu.expr.RowReference;
import org.spillway.gpu.pipeline.ArrowColumnGather;
import org.spillway.gpu.pipeline.ArrowColumnLoader;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Comparator;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runs whole pipelines (filter, project, hash aggregation) over random Arrow batches with NULLs on several
 * threads and compares them with a row-at-a-time computation of the same plan.
 */
class ColumnarPipelineTest {
  private BufferAllocator allocator;
  private RandomBatches data;

  @BeforeEach void open() {
    allocator = new RootAllocator();
    data = new RandomBatches(allocator);
  }

  @AfterEach void close() {
    data.close();
    allocator.close();
  }

  @Test void filterThenProjectKeepsRowOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    for (int trial = 0; trial < 10; trial++) {
      List<Object[]> rows = new ArrayList<>();
      List<SourceBatch> batches = randomBatches(gen, random, rows, 1 + random.nextInt(3));
      Expr condition = gen.bool(2);
      List<Expr> exprs = List.of(gen.decimal(2), new Expr.Column(6, ExprType.STRING), gen.float64(1));
      List<Object[]> expected = new ArrayList<>();
      boolean referenceFailed = false;
      try {
        for (Object[] row : rows) {
          Object keep = RowReference.eval(condition, row);
          if (keep != null && (Long) keep == 1) {
            expected.add(exprs.stream().map(e -> RowReference.eval(e, row)).toArray());
          }
        }
      } catch (ArithmeticException e) {
        referenceFailed = true;
      }
      ColumnarPipeline pipeline = new ColumnarPipeline(RandomExprs.SCHEMA,
          List.of(new PipelineStage.Filter(condition), new PipelineStage.Project(exprs)));
      String where = "seed " + seed + ", trial " + trial + ", filter " + condition + ", project " + exprs;
      if (referenceFailed) {
        assertThrows(ArithmeticException.class, () -> pipeline.run(batches, 4, () -> false), where);
        continue;
      }
      List<Object[]> actual = rowsOf(pipeline.run(batches, 4, () -> false));
      assertEquals(expected.size(), actual.size(), where);
      for (int i = 0; i < expected.size(); i++) {
        assertEquals(Arrays.asList(expected.get(i)), Arrays.asList(actual.get(i)), where + ", row " + i);
      }
    }
  }

  @Test void smallInputsAreCutIntoMorselsForEveryThread() {
    assertEquals(MorselScheduler.MORSEL_ROWS, ColumnarPipeline.morselRows(60_000_000L, 16));
    assertEquals(MorselScheduler.MORSEL_ROWS, ColumnarPipeline.morselRows(300_000, 1));
    assertEquals(ColumnarPipeline.MIN_MORSEL_ROWS, ColumnarPipeline.morselRows(100, 16));
    int rows = ColumnarPipeline.morselRows(300_000, 16);
    assertTrue(rows < MorselScheduler.MORSEL_ROWS && (300_000 + rows - 1) / rows >= 16 && Integer.bitCount(rows) == 1,
        "morsels of " + rows);
  }

  @Test void runOverColumnsGivesWhatRunOverArrowGives() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    for (int trial = 0; trial < 4; trial++) {
      List<SourceBatch> batches = randomBatches(gen, random, new ArrayList<>(), 1 + random.nextInt(3));
      List<ColumnBatch> columns = new ArrayList<>();
      for (SourceBatch b : batches) {
        ColumnVector[] loaded = new ColumnVector[b.columns().size()];
        for (int c = 0; c < loaded.length; c++) {
          loaded[c] = ArrowColumnLoader.load(b.columns().get(c), RandomExprs.SCHEMA.get(c), 0, null, b.rows());
        }
        columns.add(new ColumnBatch(loaded, b.rows()));
      }
      List<PipelineStage> stages = new ArrayList<>(List.of(new PipelineStage.Filter(gen.bool(2))));
      if (trial % 2 == 1) {
        stages.add(new PipelineStage.Aggregate(new int[] {6}, List.of(new AggCall(AggCall.Kind.COUNT, -1,
            ExprType.INT64), new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64))));
      }
      ColumnarPipeline pipeline = new ColumnarPipeline(RandomExprs.SCHEMA, stages);
      String where = "seed " + seed + ", trial " + trial + ", stages " + stages;
      List<String> overArrow;
      try {
        overArrow = rowsOf(pipeline.run(batches, 3, () -> false)).stream().map(Arrays::toString).toList();
      } catch (ArithmeticException e) {
        assertThrows(ArithmeticException.class, () -> pipeline.runColumns(columns, 3, () -> false), where);
        continue;
      }
      List<String> overColumns = rowsOf(pipeline.runColumns(columns, 3, () -> false)).stream()
          .map(Arrays::toString).toList();
      if (trial % 2 == 1) {  // groups come in any order
        overArrow = overArrow.stream().sorted().toList();
        overColumns = overColumns.stream().sorted().toList();
      }
      assertEquals(overArrow, overColumns, where);
    }
  }

  @Test void runOverColumnsRejectsColumnsOfOtherTypes() {
    ColumnarPipeline pipeline = new ColumnarPipeline(List.of(ExprType.INT64), List.of());
    ColumnBatch wrong = new ColumnBatch(new ColumnVector[] {ColumnVector.constant(ExprType.INT32, 1L, 3)}, 3);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> pipeline.runColumns(List.of(wrong), 1, () -> false));
    assertTrue(e.getMessage().contains("INT32 of 3 rows"), e.getMessage());
  }

  @Test void plainTextComparesAsJavaStringsAndNullIsUnknown() {
    ColumnVector text = ColumnVector.ofObjects(ExprType.TEXT, new Object[] {"b", null, "a", "c", "B"},
        new boolean[] {false, true, false, false, false}, 5);
    Expr column = new Expr.Column(0, ExprType.TEXT);
    Expr atLeastB = new Expr.Compare(Expr.CompareOp.GE, column, new Expr.Literal("b", ExprType.TEXT));
    Expr notA = new Expr.Compare(Expr.CompareOp.NE, column, new Expr.Literal("a", ExprType.TEXT));
    List<ColumnBatch> in = List.of(new ColumnBatch(new ColumnVector[] {text}, 5));
    for (Object[] test : new Object[][] {{atLeastB, List.of("b", "c")}, {notA, List.of("b", "c", "B")}}) {
      ColumnarPipeline pipeline = new ColumnarPipeline(List.of(ExprType.TEXT),
          List.of(new PipelineStage.Filter((Expr) test[0])));
      List<Object> kept = new ArrayList<>();
      for (ColumnBatch b : pipeline.runColumns(in, 1, () -> false)) {
        kept.addAll(Arrays.asList(b.columns()[0].objects).subList(0, b.rows()));
      }
      assertEquals(test[1], kept, test[0].toString());
    }
  }

  @Test void gatherReadsRowIdsAcrossBatchesAndMinusOneAsNull() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<Object[]> rows = new ArrayList<>();
    List<SourceBatch> batches = randomBatches(new RandomExprs(random), random, rows, 2 + random.nextInt(3));
    int[] ids = new int[5000];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = rows.isEmpty() || random.nextInt(10) == 0 ? -1 : random.nextInt(rows.size());
    }
    for (int c = 0; c < RandomExprs.SCHEMA.size(); c++) {
      List<FieldVector> column = new ArrayList<>();
      for (SourceBatch b : batches) {
        column.add(b.columns().get(c));
      }
      ArrowColumnGather gather = new ArrowColumnGather(column, RandomExprs.SCHEMA.get(c));
      assertEquals(rows.size(), gather.rows());
      ColumnVector picked = gather.gather(ids, ids.length);
      for (int i = 0; i < ids.length; i++) {
        Object expected = ids[i] < 0 ? null : rows.get(ids[i])[c];
        assertEquals(expected, RowReference.row(List.of(picked), i)[0], "seed " + seed + ", column " + c + ", id " + ids[i]);
      }
      ColumnVector all = gather.all();
      for (int r = 0; r < rows.size(); r += 97) {
        assertEquals(rows.get(r)[c], RowReference.row(List.of(all), r)[0], "seed " + seed + ", column " + c + ", row " + r);
      }
    }
  }

  @Test void hashAggregationMatchesRowAtATime() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    for (int trial = 0; trial < 10; trial++) {
      List<Object[]> rows = new ArrayList<>();
      List<SourceBatch> batches = randomBatches(gen, random, rows, 1 + random.nextInt(3));
      Expr condition = gen.bool(1);
      // keys: dictionary code and a boolean; values: a decimal, an int64, a float and a date
      List<Expr> exprs = List.of(new Expr.Column(6, ExprType.STRING), new Expr.Column(5, ExprType.BOOLEAN),
          gen.decimal(1), new Expr.Column(1, ExprType.INT64), new Expr.Column(3, ExprType.FLOAT64),
          new Expr.Column(4, ExprType.DATE));
      List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 2, ExprType.decimal(2)),
          new AggCall(AggCall.Kind.SUM0, 3, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
          new AggCall(AggCall.Kind.COUNT, 2, ExprType.INT64), new AggCall(AggCall.Kind.MIN, 4, ExprType.FLOAT64),
          new AggCall(AggCall.Kind.MAX, 5, ExprType.DATE), new AggCall(AggCall.Kind.MAX, 2, ExprType.decimal(2)));
      // no keys; small-range keys (the dense path of GroupTable); a FLOAT64 key (the hashed path)
      int[] keys = switch (trial % 3) {
        case 0 -> new int[0];
        case 1 -> new int[] {0, 1};
        default -> new int[] {4, 0};
      };
      ColumnarPipeline pipeline = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(new PipelineStage.Filter(condition),
          new PipelineStage.Project(exprs), new PipelineStage.Aggregate(keys, calls)));
      Map<List<Object>, Object[]> expected = referenceAggregate(rows, condition, exprs, keys, calls);
      List<Object[]> actual = rowsOf(pipeline.run(batches, 3, () -> false));
      String where = "seed " + seed + ", trial " + trial + ", filter " + condition + ", project " + exprs;
      assertEquals(expected.size(), actual.size(), where);
      for (Object[] row : actual) {
        List<Object> key = Arrays.asList(row).subList(0, keys.length);
        assertTrue(expected.containsKey(key), () -> where + ": unexpected group " + key);
        assertEquals(Arrays.asList(expected.get(key)), Arrays.asList(row).subList(keys.length, row.length),
            where + ", group " + key);
      }
    }
  }

  /**
   * COUNT of each column read straight from the source batches, grouped and not, after a filter: a morsel whose
   * column has no NULLs counts its rows without loading the column, the others count the non-NULL values (small
   * batches often have columns without NULLs, large ones rarely).
   */
  @Test void countOfASourceColumnSkipsOnlyColumnsWithoutNulls() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    List<Expr> identity = new ArrayList<>();
    List<AggCall> calls = new ArrayList<>();
    for (int c = 0; c < RandomExprs.SCHEMA.size(); c++) {
      identity.add(new Expr.Column(c, RandomExprs.SCHEMA.get(c)));
      calls.add(new AggCall(AggCall.Kind.COUNT, c, ExprType.INT64));
    }
    for (int trial = 0; trial < 8; trial++) {
      List<Object[]> rows = new ArrayList<>();
      List<SourceBatch> batches = randomBatches(gen, random, rows, 1 + random.nextInt(4));
      Expr condition = trial % 2 == 0 ? new Expr.Literal(1L, ExprType.BOOLEAN) : gen.bool(1);
      int[] keys = trial % 4 < 2 ? new int[0] : new int[] {5};
      ColumnarPipeline pipeline = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(new PipelineStage.Filter(condition),
          new PipelineStage.Aggregate(keys, calls)));
      Map<List<Object>, Object[]> expected = referenceAggregate(rows, condition, identity, keys, calls);
      List<Object[]> actual = rowsOf(pipeline.run(batches, 2, () -> false));
      String where = "seed " + seed + ", trial " + trial + ", filter " + condition;
      assertEquals(expected.size(), actual.size(), where);
      for (Object[] row : actual) {
        List<Object> key = Arrays.asList(row).subList(0, keys.length);
        assertEquals(Arrays.asList(expected.get(key)), Arrays.asList(row).subList(keys.length, row.length),
            where + ", group " + key);
      }
    }
  }

  @Test void globalAggregateOverNoRowsGivesOneRow() {
    List<Object[]> rows = new ArrayList<>();
    List<SourceBatch> batches = randomBatches(new RandomExprs(new Random()), new Random(), rows, 1);
    ColumnarPipeline pipeline = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(
        new PipelineStage.Filter(new Expr.Literal(0L, ExprType.BOOLEAN)),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64),
            new AggCall(AggCall.Kind.SUM0, 1, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64)))));
    List<Object[]> out = rowsOf(pipeline.run(batches, 2, () -> false));
    assertEquals(1, out.size());
    assertNull(out.get(0)[0]);
    assertEquals(List.of(0L, 0L), Arrays.asList(out.get(0)).subList(1, 3));
  }

  /**
   * A filter that keeps no rows of a morsel must still let the projection after it reshape the (empty) morsel:
   * the aggregation reads the projection's columns, which here outnumber the input's.
   */
  @Test void projectionAfterAFilterThatKeepsNothingReshapesTheMorsel() {
    List<SourceBatch> batches = randomBatches(new RandomExprs(new Random()), new Random(), new ArrayList<>(), 2);
    Expr key = new Expr.Column(0, ExprType.INT32);
    Expr value = new Expr.Column(1, ExprType.INT64);
    List<Expr> exprs = new ArrayList<>(List.of(key));
    for (long add = 1; add <= RandomExprs.SCHEMA.size(); add++) {
      exprs.add(new Expr.Arith(Expr.ArithOp.PLUS, value, new Expr.Literal(add, ExprType.INT64), ExprType.INT64));
    }
    List<AggCall> sums = new ArrayList<>();
    for (int c = 1; c < exprs.size(); c++) {
      sums.add(new AggCall(AggCall.Kind.SUM, c, ExprType.INT64));
    }
    PipelineStage nothing = new PipelineStage.Filter(new Expr.Literal(0L, ExprType.BOOLEAN));
    ColumnarPipeline grouped = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(nothing,
        new PipelineStage.Project(exprs), new PipelineStage.Aggregate(new int[] {0}, sums)));
    assertEquals(List.of(), rowsOf(grouped.run(batches, 2, () -> false)));
    ColumnarPipeline global = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(nothing,
        new PipelineStage.Project(exprs), new PipelineStage.Aggregate(new int[0], sums)));
    List<Object[]> row = rowsOf(global.run(batches, 2, () -> false));
    assertEquals(1, row.size());
    assertEquals(Arrays.asList(new Object[sums.size()]), Arrays.asList(row.get(0)));
  }

  /** The same after the aggregation: no groups still pass the projection before a second aggregation. */
  @Test void projectionAfterAnAggregateOfNoGroupsReshapesTheResult() {
    List<SourceBatch> batches = randomBatches(new RandomExprs(new Random()), new Random(), new ArrayList<>(), 1);
    Expr count = new Expr.Column(1, ExprType.INT64);
    ColumnarPipeline pipeline = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(
        new PipelineStage.Filter(new Expr.Literal(0L, ExprType.BOOLEAN)),
        new PipelineStage.Aggregate(new int[] {0}, List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64))),
        new PipelineStage.Project(List.of(count, count, count,
            new Expr.Arith(Expr.ArithOp.PLUS, count, new Expr.Literal(1L, ExprType.INT64), ExprType.INT64))),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 3, ExprType.INT64),
            new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64)))));
    List<Object[]> out = rowsOf(pipeline.run(batches, 2, () -> false));
    assertEquals(1, out.size());
    assertEquals(Arrays.asList(null, 0L), Arrays.asList(out.get(0)));
  }

  /**
   * A second aggregation over a first one's many groups (Q16's count of distinct suppliers) runs in morsels on all
   * workers, and gives what one thread gives.
   */
  @Test void aSecondAggregationOverManyGroupsRunsOnAllWorkersAsOnOne() {
    int rows = 3 * MorselScheduler.MORSEL_ROWS + 17;
    long[] keys = new long[rows];
    long[] values = new long[rows];
    Random random = new Random();
    for (int r = 0; r < rows; r++) {
      keys[r] = random.nextInt(rows / 2);  // about 0.43 x rows groups: several morsels of them
      values[r] = random.nextInt(1000);
    }
    Expr key = new Expr.Column(0, ExprType.INT64);
    List<PipelineStage> stages = List.of(
        new PipelineStage.Aggregate(new int[] {0}, List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64))),
        new PipelineStage.Project(List.of(new Expr.Arith(Expr.ArithOp.DIVIDE, key,
            new Expr.Literal((long) rows / 14 + 1, ExprType.INT64), ExprType.INT64), new Expr.Column(1, ExprType.INT64))),
        new PipelineStage.Aggregate(new int[] {0}, List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
            new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64))));
    ColumnarPipeline pipeline = new ColumnarPipeline(List.of(ExprType.INT64, ExprType.INT64), stages);
    List<ColumnBatch> in = List.of(new ColumnBatch(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, keys, null,
        rows), ColumnVector.ofLongs(ExprType.INT64, values, null, rows)}, rows));
    Comparator<Object[]> byKey = Comparator.comparingLong(row -> (Long) row[0]);
    List<Object[]> one = rowsOf(pipeline.runColumns(in, 1, () -> false));
    List<Object[]> all = rowsOf(pipeline.runColumns(in, 8, () -> false));
    one.sort(byKey);
    all.sort(byKey);
    assertTrue(one.size() >= 6 && one.size() <= 7, one.size() + " groups of keys / (rows / 14 + 1)");
    assertEquals(one.stream().map(Arrays::asList).toList(), all.stream().map(Arrays::asList).toList());
    assertEquals(Arrays.stream(values).sum(), one.stream().mapToLong(row -> (Long) row[2]).sum());
  }

  /**
   * Issue #12 item 9: a pipeline over a join's output says which input columns it reads, so that the join
   * gathers only those (COUNT(*) none), and it runs over batches whose other columns are null.
   */
  @Test void runOverColumnsNeedsOnlyTheColumnsItsStagesRead() {
    Expr decimal = new Expr.Column(2, ExprType.decimal(2));
    Expr positive = new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(1, ExprType.INT64), new Expr.Literal(0L, ExprType.INT64));
    ColumnarPipeline count = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64)))));
    assertEquals(new java.util.BitSet(), count.inputColumnsRead());
    ColumnarPipeline filtered = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(new PipelineStage.Filter(positive),
        new PipelineStage.Project(List.of(new Expr.Column(6, ExprType.STRING), decimal, new Expr.Column(4, ExprType.DATE))),
        new PipelineStage.Aggregate(new int[] {0}, List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.decimal(2))))));
    assertEquals(java.util.BitSet.valueOf(new long[] {0b1000110}), filtered.inputColumnsRead());
    ColumnarPipeline plain = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(new PipelineStage.Filter(positive)));
    assertEquals(RandomExprs.SCHEMA.size(), plain.inputColumnsRead().cardinality());

    List<ColumnVector> all = new RandomExprs(new Random()).columns(1000);
    ColumnVector[] onlyRead = new ColumnVector[all.size()];
    for (int c : filtered.inputColumnsRead().stream().toArray()) {
      onlyRead[c] = all.get(c);
    }
    List<ColumnBatch> expected = filtered.runColumns(List.of(new ColumnBatch(all.toArray(new ColumnVector[0]), 1000)), 2,
        () -> false);
    List<ColumnBatch> actual = filtered.runColumns(List.of(new ColumnBatch(onlyRead, 1000)), 2, () -> false);
    assertEquals(new HashSet<>(rowsAsLists(expected)), new HashSet<>(rowsAsLists(actual)));
    List<Object[]> counted = rowsOf(count.runColumns(List.of(new ColumnBatch(new ColumnVector[all.size()], 1000)), 2,
        () -> false));
    assertEquals(1000L, counted.get(0)[0]);
  }

  private static List<List<Object>> rowsAsLists(List<ColumnBatch> batches) {
    return rowsOf(batches).stream().map(Arrays::asList).toList();
  }

  @Test void manyGroupsMergeInPartitionsAsOneTableWould() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int rows = 400_000;
    long[] ids = new long[rows];
    boolean[] idNulls = new boolean[rows];
    Object[] tags = new Object[rows];
    long[] values = new long[rows];
    String[] tagValues = {"a", "b", "c"};
    Map<List<Object>, long[]> expected = new HashMap<>();
    for (int i = 0; i < rows; i++) {
      idNulls[i] = random.nextInt(1000) == 0;
      ids[i] = random.nextInt(150_000);
      tags[i] = tagValues[random.nextInt(tagValues.length)];
      values[i] = random.nextInt(1_000_000) - 500_000;
      long[] acc = expected.computeIfAbsent(Arrays.asList(idNulls[i] ? null : ids[i], tags[i]),
          k -> new long[] {0, 0, Long.MIN_VALUE});
      acc[0] += values[i];
      acc[1]++;
      acc[2] = Math.max(acc[2], values[i]);
    }
    ColumnarPipeline pipeline = new ColumnarPipeline(List.of(ExprType.INT64, ExprType.TEXT, ExprType.INT64), List.of(
        new PipelineStage.Aggregate(new int[] {0, 1}, List.of(new AggCall(AggCall.Kind.SUM, 2, ExprType.INT64),
            new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.MAX, 2, ExprType.INT64)))));
    // batches of 50,000 rows on 4 workers: each partial holds tens of thousands of groups, past the threshold
    List<ColumnBatch> batches = new ArrayList<>();
    for (int from = 0; from < rows; from += 50_000) {
      int to = from + 50_000;
      batches.add(new ColumnBatch(new ColumnVector[] {
          ColumnVector.ofLongs(ExprType.INT64, Arrays.copyOfRange(ids, from, to), Arrays.copyOfRange(idNulls, from, to),
              50_000),
          ColumnVector.ofObjects(ExprType.TEXT, Arrays.copyOfRange(tags, from, to), null, 50_000),
          ColumnVector.ofLongs(ExprType.INT64, Arrays.copyOfRange(values, from, to), null, 50_000)}, 50_000));
    }
    assertTrue(expected.size() > PartitionedAggregation.PARTITIONED_MERGE_GROUPS, "the test must reach the partitioned merge");
    List<Object[]> actual = rowsOf(pipeline.runColumns(batches, 4, () -> false));
    assertEquals(expected.size(), actual.size(), "seed " + seed + ": one row per group");
    for (Object[] row : actual) {
      long[] acc = expected.get(Arrays.asList(row[0], row[1]));
      assertTrue(acc != null, () -> "seed " + seed + ": unexpected group " + Arrays.toString(row));
      assertEquals(List.of(acc[0], acc[1], acc[2]), List.of(row[2], row[3], row[4]), "seed " + seed);
    }
  }

  @Test void sumOverflowIsReported() {
    BigIntVector big = new BigIntVector("big", allocator);
    data.owned().add(big);
    big.allocateNew(3);
    for (int i = 0; i < 3; i++) {
      big.set(i, Long.MAX_VALUE / 2);
    }
    big.setValueCount(3);
    ColumnarPipeline pipeline = new ColumnarPipeline(List.of(ExprType.INT64), List.of(new PipelineStage.Aggregate(
        new int[0], List.of(new AggCall(AggCall.Kind.SUM, 0, ExprType.INT64)))));
    ArithmeticException e = assertThrows(ArithmeticException.class,
        () -> pipeline.run(List.of(new SourceBatch(List.of(big), 3)), 1, () -> false));
    assertTrue(e.getMessage().contains("overflow of SUM"), e.getMessage());
  }

  private Map<List<Object>, Object[]> referenceAggregate(List<Object[]> rows, Expr condition, List<Expr> exprs,
      int[] keys, List<AggCall> calls) {
    Map<List<Object>, Object[]> groups = new HashMap<>();
    if (keys.length == 0) {
      groups.put(List.of(), initial(calls));
    }
    for (Object[] row : rows) {
      Object keep = RowReference.eval(condition, row);
      if (keep == null || (Long) keep != 1) {
        continue;
      }
      Object[] projected = exprs.stream().map(e -> RowReference.eval(e, row)).toArray();
      List<Object> key = new ArrayList<>();
      for (int k : keys) {
        key.add(projected[k]);
      }
      Object[] acc = groups.computeIfAbsent(key, k -> initial(calls));
      for (int c = 0; c < calls.size(); c++) {
        AggCall call = calls.get(c);
        Object v = call.argument() < 0 ? 1L : projected[call.argument()];
        if (v == null) {
          continue;
        }
        acc[c] = switch (call.kind()) {
          case COUNT -> (Long) acc[c] + 1;
          case SUM, SUM0 -> BigInteger.valueOf(acc[c] == null ? 0 : (Long) acc[c]).add(BigInteger.valueOf((Long) v))
              .longValueExact();
          case MIN -> acc[c] == null || compare(v, acc[c]) < 0 ? v : acc[c];
          case MAX -> acc[c] == null || compare(v, acc[c]) > 0 ? v : acc[c];
        };
      }
    }
    return groups;
  }

  @SuppressWarnings("unchecked")
  private static int compare(Object a, Object b) {
    return ((Comparable<Object>) a).compareTo(b);
  }

  private static Object[] initial(List<AggCall> calls) {
    Object[] acc = new Object[calls.size()];
    for (int c = 0; c < acc.length; c++) {
      AggCall.Kind kind = calls.get(c).kind();
      acc[c] = kind == AggCall.Kind.COUNT || kind == AggCall.Kind.SUM0 ? (Object) 0L : null;
    }
    return acc;
  }

  private static List<Object[]> rowsOf(List<ColumnBatch> batches) {
    List<Object[]> out = new ArrayList<>();
    for (ColumnBatch batch : batches) {
      for (int r = 0; r < batch.rows(); r++) {
        out.add(RowReference.row(Arrays.asList(batch.columns()), r));
      }
    }
    return out;
  }

  /** Arrow batches of the schema, big enough to span several morsels; their rows are also added to {@code rows}. */
  private List<SourceBatch> randomBatches(RandomExprs gen, Random random, List<Object[]> rows, int count) {
    List<SourceBatch> batches = new ArrayList<>();
    for (int b = 0; b < count; b++) {
      int n = random.nextInt(3) == 0 ? random.nextInt(10) : MorselScheduler.MORSEL_ROWS + random.nextInt(40_000);
      Object[][] values = new Object[n][];
      for (int r = 0; r < n; r++) {
        values[r] = RandomExprs.SCHEMA.stream().map(gen::value).toArray();
        rows.add(values[r]);
      }
      List<FieldVector> columns = new ArrayList<>();
      for (int c = 0; c < RandomExprs.SCHEMA.size(); c++) {
        columns.add(data.vector(RandomExprs.SCHEMA.get(c), values, c, n));
      }
      batches.add(new SourceBatch(columns, n));
    }
    return batches;
  }
}
