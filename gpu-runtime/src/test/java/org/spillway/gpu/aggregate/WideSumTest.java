package org.spillway.gpu.aggregate;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Wide sums on the CPU backend (HashAggregator's 64-bit partial sums with wrap-around counts, merged over worker
 * threads) against exact BigInteger sums on fresh random data whose sums cross 2^63 and 2^64, positive, negative
 * and mixed, grouped and global, with and without NULLs; the 128-bit conversions of both backends; and the stages
 * after the aggregation over wide values (comparison, quotient, cast).
 */
class WideSumTest {
  private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);
  private static final ExprType DEC2 = ExprType.decimal(2);

  private BufferAllocator allocator;
  private WideSumData data;

  @BeforeEach void open() {
    allocator = new RootAllocator();
    data = new WideSumData(allocator);
  }

  @AfterEach void close() {
    data.close();
    allocator.close();
  }

  @Test void wideSumsOfEverySignMatchExactSums() {
    long seed = System.nanoTime();
    for (WideSumData.Signs signs : WideSumData.Signs.values()) {
      for (boolean nulls : new boolean[] {false, true}) {
        data.close();
        data = new WideSumData(allocator);
        Random random = new Random(seed + signs.ordinal() * 2 + (nulls ? 1 : 0));
        List<SourceBatch> batches = new ArrayList<>();
        for (int rows : new int[] {70_000, 1, 3000, 0, 66_000}) {  // several morsels: partial sums merge
          batches.add(data.batch(random, rows, signs, nulls));
        }
        String where = "seed " + seed + ", " + signs + ", nulls " + nulls;
        assertTrue(data.largestMagnitude().compareTo(TWO_TO_64) > 0, where + ": the sums stay below 2^64");
        List<AggCall> calls = List.of(AggCall.wideSum(AggCall.Kind.SUM, 1), AggCall.wideSum(AggCall.Kind.SUM0, 1),
            new AggCall(AggCall.Kind.SUM, 2, DEC2), new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64));
        for (int[] keys : new int[][] {{0}, {}}) {
          ColumnarPipeline pipeline = new ColumnarPipeline(WideSumData.TYPES,
              List.of(new PipelineStage.Aggregate(keys, calls)));
          assertEquals(List.of(ExprType.BIG_DECIMAL, ExprType.BIG_DECIMAL, DEC2, ExprType.INT64),
              pipeline.outputTypes().subList(keys.length, keys.length + 4));
          for (Object[] row : RandomBatches.rowsOf(pipeline.run(batches, 3, () -> false))) {
            int key = keys.length == 0 ? -1 : (Integer) (int) (long) (Long) row[0];
            BigDecimal expected = data.sum(key);
            String at = where + ", keys " + keys.length + ", key " + key;
            assertEquals(expected, row[keys.length], at + ": SUM");
            assertEquals(expected, row[keys.length + 1], at + ": SUM0");
            assertEquals(data.counts.getOrDefault(key, 0L), row[keys.length + 3], at + ": COUNT");
          }
        }
      }
    }
  }

  /** Over no rows a global wide SUM is NULL and SUM0 is 0 at the argument's scale. */
  @Test void globalWideSumsOverNoRows() {
    List<AggCall> calls = List.of(AggCall.wideSum(AggCall.Kind.SUM, 1), AggCall.wideSum(AggCall.Kind.SUM0, 1));
    ColumnarPipeline pipeline = new ColumnarPipeline(WideSumData.TYPES,
        List.of(new PipelineStage.Aggregate(new int[0], calls)));
    List<Object[]> rows = RandomBatches.rowsOf(pipeline.run(List.of(data.batch(new Random(1), 0,
        WideSumData.Signs.MIXED, false)), 2, () -> false));
    assertEquals(1, rows.size());
    assertNull(rows.get(0)[0]);
    assertEquals(new BigDecimal("0.00"), rows.get(0)[1]);
  }

  /** A 64-bit SUM of the same data still fails; the wide one answers. */
  @Test void narrowSumsStillFailWhereWideOnesAnswer() {
    SourceBatch batch = data.batch(new Random(System.nanoTime()), 4000, WideSumData.Signs.POSITIVE, false);
    ColumnarPipeline narrow = new ColumnarPipeline(WideSumData.TYPES, List.of(new PipelineStage.Aggregate(new int[0],
        List.of(new AggCall(AggCall.Kind.SUM, 1, DEC2)))));
    ArithmeticException e = assertThrows(ArithmeticException.class, () -> narrow.run(List.of(batch), 2, () -> false));
    assertEquals("overflow of SUM of column $1 (DECIMAL(2)): the sum does not fit in 64 bits", e.getMessage());
    ColumnarPipeline wide = new ColumnarPipeline(WideSumData.TYPES, List.of(new PipelineStage.Aggregate(new int[0],
        List.of(AggCall.wideSum(AggCall.Kind.SUM, 1)))));
    assertEquals(data.sum(-1), RandomBatches.rowsOf(wide.run(List.of(batch), 2, () -> false)).get(0)[0]);
  }

  /** HAVING, AVG and a cast after the aggregation, on the CPU over the wide values. */
  @Test void stagesAfterTheAggregationReadWideValues() {
    Random random = new Random(System.nanoTime());
    List<SourceBatch> batches = List.of(data.batch(random, 5000, WideSumData.Signs.MIXED, true));
    Expr sum = new Expr.Column(1, ExprType.BIG_DECIMAL);
    Expr count = new Expr.Column(2, ExprType.INT64);
    BigDecimal threshold = new BigDecimal("40000000000000000.00");
    Expr having = new Expr.Compare(Expr.CompareOp.GT, sum, new Expr.Literal(threshold, ExprType.BIG_DECIMAL));
    Expr average = new Expr.Cast(new Expr.BigDecimalArith(Expr.ArithOp.DIVIDE, sum, count), DEC2, 19);
    Expr negated = new Expr.BigDecimalArith(Expr.ArithOp.MINUS, new Expr.Literal(BigDecimal.ZERO,
        ExprType.BIG_DECIMAL), sum);
    ColumnarPipeline pipeline = new ColumnarPipeline(WideSumData.TYPES, List.of(
        new PipelineStage.Aggregate(new int[] {0}, List.of(AggCall.wideSum(AggCall.Kind.SUM, 1),
            new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64))),
        new PipelineStage.Filter(having),
        new PipelineStage.Project(List.of(new Expr.Column(0, ExprType.INT32), sum, average, negated))));
    List<Object[]> rows = RandomBatches.rowsOf(pipeline.run(batches, 2, () -> false));
    long expectedRows = data.sums.keySet().stream().filter(k -> k >= 0 && data.sum(k).compareTo(threshold) > 0).count();
    assertEquals(expectedRows, rows.size());
    for (Object[] row : rows) {
      int key = (int) (long) (Long) row[0];
      BigDecimal sumValue = data.sum(key);
      assertEquals(sumValue, row[1]);
      BigDecimal avg = sumValue.divide(BigDecimal.valueOf(data.counts.get(key)), java.math.MathContext.DECIMAL64)
          .setScale(2, java.math.RoundingMode.DOWN);
      assertEquals(avg.unscaledValue().longValueExact(), row[2], "AVG of key " + key);  // a DECIMAL(2) long
      assertEquals(sumValue.negate(), row[3]);
    }
  }

  /** Q1 with its sums wide gives the values of Q1 with 64-bit sums where those fit. */
  @Test void wideAndNarrowSumsAgreeWhereBothFit() {
    List<org.apache.arrow.vector.FieldVector> owned = new ArrayList<>();
    try {
      List<SourceBatch> batches = org.spillway.gpu.bench.PipelineWorkloads.lineitem(allocator, 200_000,
          System.nanoTime(), owned);
      List<PipelineStage> q1 = org.spillway.gpu.bench.PipelineWorkloads.q1();
      PipelineStage.Aggregate narrow = (PipelineStage.Aggregate) q1.get(2);
      List<AggCall> wideCalls = new ArrayList<>();
      for (AggCall call : narrow.calls()) {
        wideCalls.add(call.kind() == AggCall.Kind.SUM ? AggCall.wideSum(AggCall.Kind.SUM, call.argument()) : call);
      }
      List<PipelineStage> wideQ1 = List.of(q1.get(0), q1.get(1), new PipelineStage.Aggregate(narrow.groupKeys(),
          wideCalls));
      List<ExprType> types = org.spillway.gpu.bench.PipelineWorkloads.LINEITEM_TYPES;
      List<Object[]> expected = RandomBatches.rowsOf(new ColumnarPipeline(types, q1).run(batches, 3, () -> false));
      List<Object[]> actual = RandomBatches.rowsOf(new ColumnarPipeline(types, wideQ1).run(batches, 3, () -> false));
      assertEquals(expected.size(), actual.size());
      for (int r = 0; r < expected.size(); r++) {
        for (int c = 0; c < narrow.calls().size(); c++) {
          AggCall call = narrow.calls().get(c);
          Object want = expected.get(r)[2 + c];
          Object got = actual.get(r)[2 + c];
          assertEquals(call.kind() == AggCall.Kind.SUM ? BigDecimal.valueOf((Long) want, call.resultType().scale())
              : want, got, "row " + r + ", call " + c);
        }
      }
    } finally {
      owned.forEach(org.apache.arrow.vector.FieldVector::close);
    }
  }

  @Test void conversionsOfBothBackendsAreExact() {
    Random random = new Random(System.nanoTime());
    long[] edges = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1};
    List<long[]> pairs = new ArrayList<>();
    for (long a : edges) {
      for (long b : edges) {
        pairs.add(new long[] {a, b});
      }
    }
    for (int i = 0; i < 1000; i++) {
      pairs.add(new long[] {random.nextLong(), random.nextLong() >> random.nextInt(64)});
    }
    for (long[] p : pairs) {
      BigInteger high = BigInteger.valueOf(p[1]).shiftLeft(64);
      BigInteger lowUnsigned = new BigInteger(Long.toUnsignedString(p[0]));
      assertEquals(new BigDecimal(high.add(lowUnsigned), 3), WideSums.ofTwosComplement(p[0], p[1], 3),
          "low " + p[0] + " high " + p[1]);
      assertEquals(new BigDecimal(high.add(BigInteger.valueOf(p[0])), 3), WideSums.value(p[0], p[1], 3),
          "low " + p[0] + " wraps " + p[1]);
    }
  }

  /** Adding values one by one wraps and counts exactly at both ends of the 64-bit range. */
  @Test void wrapAroundsAreCountedInBothDirections() {
    long[] low = {Long.MAX_VALUE - 5, Long.MIN_VALUE + 5};
    long[] wraps = new long[2];
    BigInteger[] exact = {BigInteger.valueOf(low[0]), BigInteger.valueOf(low[1])};
    Random random = new Random(System.nanoTime());
    for (int i = 0; i < 10_000; i++) {
      for (int g = 0; g < 2; g++) {
        long x = (g == 0 ? 1 : -1) * (random.nextLong() >>> 1) + (random.nextInt(5) - 2);
        low[g] = WideSums.add(low, wraps, g, x);
        exact[g] = exact[g].add(BigInteger.valueOf(x));
        assertEquals(new BigDecimal(exact[g]), WideSums.value(low[g], wraps[g], 0), "group " + g + " step " + i);
      }
    }
    assertTrue(wraps[0] > 1000 && wraps[1] < -1000, wraps[0] + " and " + wraps[1] + " wraps");
  }
}
