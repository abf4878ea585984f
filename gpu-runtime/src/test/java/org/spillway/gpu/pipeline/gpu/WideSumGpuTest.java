package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.bench.PipelineWorkloads;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.aggregate.WideSumData;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;

/**
 * Wide sums on the GPU (the kernels' 128-bit sums read back as exact BigDecimals) against the CPU backend and exact
 * sums, on fresh random data whose sums cross 2^63 and 2^64: grouped and global interpreter pipelines with and without
 * NULLs under both filter variants, Q1's shape with every sum wide, and Q6's selection_aggregate kernel.
 */
@GpuTest
class WideSumGpuTest {
  private static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(16 << 10);
  private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);
  private static final ExprType DEC2 = ExprType.decimal(2);

  private BufferAllocator allocator;
  private WideSumData data;
  private RandomBatches lineitem;

  @BeforeEach void open() {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    data = new WideSumData(allocator);
    lineitem = new RandomBatches(allocator);
  }

  @AfterEach void close() {
    data.close();
    lineitem.close();
    allocator.close();
  }

  @ParameterizedTest
  @MethodSource("org.spillway.gpu.pipeline.gpu.GpuColumnarPipelineTest#variants")
  void groupedAndGlobalWideSumsMatchTheCpuBackend(TransferMethod method, FilterVariant variant, boolean nulls) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<SourceBatch> batches = new ArrayList<>();
    for (WideSumData.Signs signs : WideSumData.Signs.values()) {
      batches.add(data.batch(random, 1000 + random.nextInt(9000), signs, nulls));
    }
    String where = "seed " + seed + ", " + method + ", " + variant + ", nulls " + nulls;
    assertTrue(data.largestMagnitude().compareTo(TWO_TO_64) > 0, where + ": the sums stay below 2^64");
    List<AggCall> calls = List.of(AggCall.wideSum(AggCall.Kind.SUM, 1), AggCall.wideSum(AggCall.Kind.SUM0, 1),
        AggCall.wideSum(AggCall.Kind.SUM, 2), new AggCall(AggCall.Kind.SUM, 2, DEC2),
        new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64),
        new AggCall(AggCall.Kind.MIN, 1, DEC2), new AggCall(AggCall.Kind.MAX, 1, DEC2));
    // rows with s below a random threshold, and the value negated where k is odd
    Expr keep = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(2, DEC2),
        new Expr.Literal((long) random.nextInt(20_000) - 10_000, DEC2));
    Expr odd = new Expr.InRanges(new Expr.Column(0, ExprType.INT32), new long[] {1, 3}, new long[] {1, 3}, null);
    Expr v = new Expr.Column(1, DEC2);
    Expr signed = new Expr.Case(List.of(odd), List.of(new Expr.Arith(Expr.ArithOp.MINUS,
        new Expr.Literal(0L, DEC2), v, DEC2)), v);
    List<PipelineStage> project = List.of(new PipelineStage.Filter(keep), new PipelineStage.Project(
        List.of(new Expr.Column(0, ExprType.INT32), signed, new Expr.Column(2, DEC2))));
    for (int[] keys : new int[][] {{0}, {}}) {
      for (boolean filtered : new boolean[] {false, true}) {
        List<PipelineStage> stages = new ArrayList<>(filtered ? project : List.of());
        stages.add(new PipelineStage.Aggregate(keys, calls));
        GpuColumnarPipeline gpu = new GpuColumnarPipeline(WideSumData.TYPES, stages).withFilterVariant(variant)
            .withTransferOptions(SMALL_CHUNKS);
        assertEquals(java.util.Optional.empty(), gpu.unsupportedReason(), where);
        String at = where + ", keys " + keys.length + ", filtered " + filtered;
        List<Object[]> rows = RandomBatches.assertSameResult(gpu, method, batches, at, null);
        if (!filtered) {
          for (Object[] row : rows) {
            int key = keys.length == 0 ? -1 : (int) (long) (Long) row[0];
            assertEquals(data.sum(key), row[keys.length], at + ", key " + key + ": exact SUM");
          }
        }
      }
    }
  }

  /** Q1 with every sum wide, over prices large enough that sum_charge passes 2^64 per group. */
  @Test void q1WithWideSumsMatchesTheCpuBackend() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<SourceBatch> batches = PipelineWorkloads.lineitem(allocator, 150_000, seed, lineitem.owned());
    for (SourceBatch batch : batches) {
      BigIntVector price = (BigIntVector) batch.columns().get(2);
      for (int r = 0; r < batch.rows(); r++) {
        price.set(r, (1L << 48) + (random.nextLong() >>> 16));  // times 100 * 108 stays below 2^63
      }
    }
    List<PipelineStage> q1 = new ArrayList<>(PipelineWorkloads.q1());
    PipelineStage.Aggregate narrow = (PipelineStage.Aggregate) q1.get(2);
    List<AggCall> wide = new ArrayList<>();
    for (AggCall call : narrow.calls()) {
      wide.add(call.kind() == AggCall.Kind.SUM ? AggCall.wideSum(AggCall.Kind.SUM, call.argument()) : call);
    }
    q1.set(2, new PipelineStage.Aggregate(narrow.groupKeys(), wide));
    for (FilterVariant variant : FilterVariant.values()) {
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, q1).withFilterVariant(variant);
      List<Object[]> rows = RandomBatches.assertSameResult(gpu, TransferMethod.PINNED_COPY, batches,
          "seed " + seed + ", " + variant, null);
      assertTrue(rows.size() >= 3, rows.size() + " groups");
      BigDecimal charge = (BigDecimal) rows.get(0)[5];
      assertTrue(charge.unscaledValue().abs().compareTo(TWO_TO_64) > 0, "sum_charge " + charge + " below 2^64");
    }
  }

  /** Q6's selection_aggregate kernel hands its 128-bit sum over as a wide sum, as the interpreter does. */
  @Test void q6SelectionKernelSumsWide() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<SourceBatch> batches = PipelineWorkloads.lineitem(allocator, 200_000, seed, lineitem.owned());
    for (SourceBatch batch : batches) {
      BigIntVector price = (BigIntVector) batch.columns().get(2);
      for (int r = 0; r < batch.rows(); r++) {
        price.set(r, (1L << 58) + (random.nextLong() >>> 6));  // times a discount of at most 0.11: below 2^63
      }
    }
    List<PipelineStage> q6 = new ArrayList<>(PipelineWorkloads.q6(PipelineWorkloads.day(1992, 1, 1),
        PipelineWorkloads.day(1999, 1, 1), 2, 9, 4000));
    q6.set(2, new PipelineStage.Aggregate(new int[0], List.of(AggCall.wideSum(AggCall.Kind.SUM, 0),
        new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64))));
    for (FilterVariant variant : FilterVariant.values()) {
      String where = "seed " + seed + ", " + variant;
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, q6).withFilterVariant(variant);
      List<Object[]> rows = RandomBatches.assertSameResult(gpu, TransferMethod.ZERO_COPY, batches, where, null);
      assertTrue(gpu.lastRun().kernel().endsWith("selection_aggregate_" + variant.label()), gpu.lastRun().kernel());
      BigDecimal revenue = (BigDecimal) rows.get(0)[0];
      assertTrue(revenue.unscaledValue().compareTo(TWO_TO_64) > 0, where + ": revenue " + revenue + " below 2^64");
      List<Object[]> interpreted = RandomBatches.rowsOf(RandomBatches.run(gpu.withSelectionKernel(false),
          TransferMethod.ZERO_COPY, batches));
      RandomBatches.assertSameRows(rows, interpreted, where + " (interpreter)");
    }
  }

  /** Over no rows a global wide SUM is NULL and SUM0 is 0 at the argument's scale, as on the CPU. */
  @Test void globalWideSumsOverNoRows() {
    List<SourceBatch> batches = List.of(data.batch(new Random(1), 0, WideSumData.Signs.MIXED, false),
        data.batch(new Random(2), 100, WideSumData.Signs.MIXED, false));
    Expr never = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(0, ExprType.INT32),
        new Expr.Literal(-1L, ExprType.INT32));
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(WideSumData.TYPES, List.of(new PipelineStage.Filter(never),
        new PipelineStage.Aggregate(new int[0], List.of(AggCall.wideSum(AggCall.Kind.SUM, 1),
            AggCall.wideSum(AggCall.Kind.SUM0, 1)))));
    List<Object[]> rows = RandomBatches.assertSameResult(gpu, TransferMethod.PINNED_COPY, batches, "no row", null);
    assertNull(rows.get(0)[0]);
    assertEquals(new BigDecimal("0.00"), rows.get(0)[1]);
  }
}
