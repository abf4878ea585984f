package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.RandomExprs;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;

/**
 * The GPU backend against the CPU backend on fresh random data with and without NULLs: random expression
 * programs in random filter/project/aggregate pipelines (global and grouped, ragged sizes, one row, empty
 * input) under both filter variants and both pinned copy and zero-copy, NULL group keys and all-NULL
 * aggregates, hash tables that must grow, the empty-marker key, and errors; results must be equal, value
 * for value.
 */
@GpuTest
class GpuColumnarPipelineTest {
  /** 4 KiB chunks: 512 rows of 8 bytes, so that small batches still span many chunks and ragged ends. */
  private static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(4096);
  private static final ExprType DEC2 = ExprType.decimal(2);
  private static final int[][] KEY_CHOICES = {{}, {2}, {2, 3}, {0}, {1}, {2, 4}, {4}};
  private static final int[] SIZES = {0, 1, 31, 513, 1000, 4099};

  private BufferAllocator allocator;
  private RandomBatches data;
  private final List<FieldVector> vectors = new ArrayList<>();

  @BeforeEach void open() {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    data = new RandomBatches(allocator);
  }

  @AfterEach void close() {
    vectors.forEach(FieldVector::close);
    data.close();
    allocator.close();
  }

  static Stream<Arguments> variants() {
    return Stream.of(Arguments.of(TransferMethod.PINNED_COPY, FilterVariant.BRANCHING, true),
        Arguments.of(TransferMethod.ZERO_COPY, FilterVariant.PREDICATION, true),
        Arguments.of(TransferMethod.PINNED_COPY, FilterVariant.PREDICATION, false),
        Arguments.of(TransferMethod.ZERO_COPY, FilterVariant.BRANCHING, false));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void randomPipelinesMatchTheCpuBackend(TransferMethod method, FilterVariant variant, boolean nulls) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    int supported = 0;
    for (int attempt = 0; attempt < 600 && supported < 30; attempt++) {
      Expr condition = gen.bool(2);
      List<Expr> exprs = List.of(gen.int64(1), gen.decimal(2), new Expr.Column(6, ExprType.STRING),
          new Expr.Column(4, ExprType.DATE), new Expr.Column(0, ExprType.INT32));
      int[] keys = KEY_CHOICES[random.nextInt(KEY_CHOICES.length)];
      List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 1, DEC2),
          new AggCall(AggCall.Kind.SUM0, 0, ExprType.INT64),
          new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64),
          new AggCall(AggCall.Kind.MIN, 3, ExprType.DATE), new AggCall(AggCall.Kind.MAX, 1, DEC2),
          new AggCall(AggCall.Kind.MIN, 0, ExprType.INT64), new AggCall(AggCall.Kind.SUM, 4, ExprType.INT64));
      List<PipelineStage> stages = List.of(new PipelineStage.Filter(condition), new PipelineStage.Project(exprs),
          new PipelineStage.Aggregate(keys, calls));
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages).withTransferOptions(SMALL_CHUNKS)
          .withFilterVariant(variant);
      if (gpu.unsupportedReason().isPresent()) {
        continue;
      }
      supported++;
      List<SourceBatch> batches = new ArrayList<>();
      for (int b = random.nextInt(3); b >= 0; b--) {
        batches.add(data.batch(gen, SIZES[random.nextInt(SIZES.length)], nulls));
      }
      String where = "seed " + seed + ", attempt " + attempt + ", " + method + ", " + variant + ", nulls " + nulls
          + ", keys " + Arrays.toString(keys) + ", filter " + condition + ", project " + exprs;
      // keys that fill 64 bits leave no bit for a NULL flag (NULL data or a NULL literal): that alone may go
      // to the CPU
      RandomBatches.assertSameResult(gpu, method, batches, where, "NULL flags");
    }
    assertTrue(supported >= 30, "only " + supported + " random pipelines compiled for the GPU (seed " + seed + ")");
  }

  /**
   * A table sized for far more groups than come (a planner's overestimate) reads back only its groups, gathered on
   * the device, with the same result: the empty marker's key (-1) and no group at all included.
   */
  @Test void anOversizedTableReadsBackOnlyItsGroups() {
    int rows = 5000;
    BigIntVector key = longs("k", rows, r -> r % 17 == 0 ? -1 : r % 300);
    BigIntVector value = longs("v", rows, r -> r);
    List<ExprType> types = List.of(ExprType.INT64, ExprType.INT64);
    List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64),
        new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.MAX, 1, ExprType.INT64));
    for (boolean none : new boolean[] {false, true}) {
      Expr filter = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(1, ExprType.INT64),
          new Expr.Literal(none ? -1L : 1L << 40, ExprType.INT64));
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(types, List.of(new PipelineStage.Filter(filter),
          new PipelineStage.Aggregate(new int[] {0}, calls))).withExpectedGroups(1_000_000);
      List<Object[]> got = RandomBatches.assertSameResult(gpu, TransferMethod.ZERO_COPY,
          List.of(new SourceBatch(List.of(key, value), rows)), "oversized table, no rows " + none, null);
      assertEquals(none ? 0 : 301, got.size());
      assertTrue(gpu.lastRun().returnedBytes() < 1_000_000, "read back " + gpu.lastRun().returnedBytes() + " bytes");
    }
  }

  /**
   * Four 32-bit group keys (128 bits) of known ranges pack into 64 and aggregate on the GPU as on the CPU, NULL keys
   * included, values at both ends of each range; a value outside its range leaves the run to the CPU, with the same
   * result and the reason.
   */
  @Test void keysPackedByTheirRangesAggregateAsOnTheCpu() {
    int rows = 20_000;
    Random random = new Random(31);
    long[][] ranges = {{-5_000, 5_000_000}, {8035, 10591}, {7, 7}, {0, 149}};
    List<FieldVector> keys = new ArrayList<>();
    for (int k = 0; k < ranges.length; k++) {
      IntVector key = new IntVector("k" + k, allocator);
      vectors.add(key);
      keys.add(key);
      key.allocateNew(rows);
      for (int r = 0; r < rows; r++) {
        long low = ranges[k][0];
        long high = ranges[k][1];
        long span = Math.min(high - low + 1, 40);  // few distinct values, so that groups repeat
        long v = r % 97 == 0 ? low : r % 89 == 0 ? high : low + random.nextInt((int) span);
        if (k == 3 && r % 13 == 0) {
          key.setNull(r);
        } else {
          key.set(r, (int) v);
        }
      }
      key.setValueCount(rows);
    }
    BigIntVector value = new BigIntVector("v", allocator);
    vectors.add(value);
    value.allocateNew(rows);
    for (int r = 0; r < rows; r++) {
      value.set(r, r * 3L - 1000);
    }
    value.setValueCount(rows);
    List<FieldVector> columns = new ArrayList<>(keys);
    columns.add(value);
    List<SourceBatch> batches = List.of(new SourceBatch(columns, rows));
    List<ExprType> types = List.of(ExprType.INT32, ExprType.INT32, ExprType.INT32, ExprType.INT32, ExprType.INT64);
    PipelineStage.Aggregate aggregate = new PipelineStage.Aggregate(new int[] {0, 1, 2, 3},
        List.of(new AggCall(AggCall.Kind.SUM, 4, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64)));
    for (TransferMethod method : new TransferMethod[] {TransferMethod.PINNED_COPY, TransferMethod.ZERO_COPY}) {
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(types, List.of(aggregate.withKeyRanges(ranges)))
          .withTransferOptions(SMALL_CHUNKS);
      assertEquals("supported", gpu.unsupportedReason().orElse("supported"));
      List<Object[]> got = assertSameResult(gpu, method, batches, "packed keys over " + method);
      assertTrue(got.size() > 100, got.size() + " groups");
      assertNull(gpu.lastFallback());
    }
    long[][] tooNarrow = {{-5_000, 5_000_000}, {8035, 10000}, {7, 7}, {0, 149}};  // some dates lie above 10000
    GpuColumnarPipeline stale = new GpuColumnarPipeline(types, List.of(aggregate.withKeyRanges(tooNarrow)));
    RandomBatches.assertSameResult(stale, TransferMethod.PINNED_COPY, batches, "a value outside its range",
        "outside the range");
    assertTrue(stale.lastFallback() != null && stale.lastFallback().contains("outside the range"),
        "fell back: " + stale.lastFallback());
  }

  /** NULL group keys form their own group; SUM/MIN/MAX of only NULLs are NULL, COUNT(x) counts non-NULLs. */
  @Test void nullKeysAndAggregatesOfOnlyNulls() {
    int rows = 3000;
    IntVector key = new IntVector("k", allocator);
    BigIntVector value = new BigIntVector("v", allocator);
    vectors.add(key);
    vectors.add(value);
    key.allocateNew(rows);
    value.allocateNew(rows);
    for (int r = 0; r < rows; r++) {
      if (r % 7 == 0) {
        key.setNull(r);
      } else {
        key.set(r, r % 5);
      }
      if (r % 5 == 1 || r % 11 == 0) {
        value.setNull(r);  // key 1 sees only NULL values
      } else {
        value.set(r, r * 1000L - 7);
      }
    }
    key.setValueCount(rows);
    value.setValueCount(rows);
    List<SourceBatch> batches = List.of(new SourceBatch(List.of(key, value), rows));
    List<ExprType> types = List.of(ExprType.INT32, ExprType.INT64);
    List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64),
        new AggCall(AggCall.Kind.SUM0, 1, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64),
        new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.MIN, 1, ExprType.INT64),
        new AggCall(AggCall.Kind.MAX, 1, ExprType.INT64));
    for (FilterVariant variant : FilterVariant.values()) {
      for (int[] keys : new int[][] {{0}, {}}) {
        GpuColumnarPipeline gpu = new GpuColumnarPipeline(types, List.of(new PipelineStage.Aggregate(keys, calls)))
            .withFilterVariant(variant).withTransferOptions(SMALL_CHUNKS);
        List<Object[]> got = RandomBatches.assertSameResult(gpu, TransferMethod.PINNED_COPY, batches,
            variant + " keys " + Arrays.toString(keys), null);
        assertEquals(keys.length == 0 ? 1 : 6, got.size(), "five keys and NULL");
        if (keys.length == 1) {
          Object[] onlyNulls = got.stream().filter(row -> Long.valueOf(1).equals(row[0])).findFirst().orElseThrow();
          assertEquals(Arrays.asList(1L, null, 0L, 0L), Arrays.asList(onlyNulls).subList(0, 4));
        }
      }
    }
  }

  /**
   * COUNT(DISTINCT x) GROUP BY k as Calcite plans it: GROUP BY k, x, then COUNT(x) per k, both on the GPU (the device
   * regroups the first aggregation's groups, and only k's come back).
   */
  @Test void countDistinctRunsAsTwoAggregations() {
    RandomExprs gen = new RandomExprs(new Random(System.nanoTime()));
    List<SourceBatch> batches = List.of(randomBatch(gen, 4099), randomBatch(gen, 1000));
    List<PipelineStage> stages = List.of(new PipelineStage.Aggregate(new int[] {6, 4}, List.of()),
        new PipelineStage.Aggregate(new int[] {0}, List.of(new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64))));
    for (FilterVariant variant : FilterVariant.values()) {
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages).withFilterVariant(variant);
      assertTrue(gpu.regroupsOnDevice());
      List<Object[]> rows = RandomBatches.assertSameResult(gpu, TransferMethod.PINNED_COPY, batches, variant
          + " COUNT(DISTINCT)", null);
      assertTrue(rows.size() > 5, rows.size() + " groups");
      assertEquals(16 + GpuAggregateState.bytes(rows.size(), 1), gpu.lastRun().returnedBytes(),
          "only the outer groups come back");
    }
  }

  /**
   * TPC-H Q16's shape: four keys packed by their ranges, NULL keys among them, regrouped on the device by three (or
   * one) of them with COUNT(*) and COUNT of a key that may be NULL (which counts only the groups whose key is not);
   * with pinned copy and zero-copy, and through the column cache. Same rows as the CPU backend.
   */
  @Test void regroupingPackedNullableKeysMatchesTheCpu() {
    int rows = 60_000;
    Random random = new Random(System.nanoTime());
    long[][] ranges = {{0, 24}, {0, 149}, {1, 50}, {0, 9_999}};
    List<FieldVector> columns = new ArrayList<>();
    for (int k = 0; k < ranges.length; k++) {
      IntVector key = new IntVector("k" + k, allocator);
      vectors.add(key);
      columns.add(key);
      key.allocateNew(rows);
      int span = (int) Math.min(ranges[k][1] - ranges[k][0] + 1, k == 3 ? 3_000 : 12);
      for (int r = 0; r < rows; r++) {
        if (k == 0 && r % 17 == 0 || k == 3 && r % 23 == 0) {
          key.setNull(r);
        } else {
          key.set(r, (int) (ranges[k][0] + random.nextInt(span)));
        }
      }
      key.setValueCount(rows);
    }
    List<SourceBatch> batches = List.of(new SourceBatch(columns, rows / 2), new SourceBatch(columns, rows));
    List<ExprType> types = List.of(ExprType.STRING, ExprType.STRING, ExprType.INT32, ExprType.INT32);
    PipelineStage.Aggregate inner = new PipelineStage.Aggregate(new int[] {3, 0, 1, 2}, List.of())
        .withKeyRanges(new long[][] {ranges[3], ranges[0], ranges[1], ranges[2]});
    AggCall countSupplier = new AggCall(AggCall.Kind.COUNT, 0, ExprType.INT64);
    AggCall countAll = new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64);
    AggCall countBrand = new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64);
    List<PipelineStage.Aggregate> outers = List.of(
        new PipelineStage.Aggregate(new int[] {1, 2, 3}, List.of(countSupplier, countAll)),
        new PipelineStage.Aggregate(new int[] {3}, List.of(countBrand, countSupplier)));
    try (GpuColumnCache cache = new GpuColumnCache(org.spillway.gpu.device.GpuRuntime.requireDevice(), 64L << 20)) {
      for (PipelineStage.Aggregate outer : outers) {
        for (TransferMethod method : new TransferMethod[] {TransferMethod.PINNED_COPY, TransferMethod.ZERO_COPY}) {
          for (boolean cached : new boolean[] {false, true, true}) {
            GpuColumnarPipeline gpu = new GpuColumnarPipeline(types, List.of(inner, outer))
                .withTransferOptions(SMALL_CHUNKS).withCache(cached ? cache : null);
            assertTrue(gpu.regroupsOnDevice());
            String where = "outer " + Arrays.toString(outer.groupKeys()) + " over " + method + (cached ? ", cached" : "");
            List<Object[]> got = assertSameResult(gpu, method, batches, where);
            assertTrue(got.size() > 10, where + ": " + got.size() + " groups");
            assertEquals(16 + GpuAggregateState.bytes(got.size(), outer.calls().size()),
                gpu.lastRun().returnedBytes(), where + ": only the outer groups come back");
          }
        }
      }
    }
  }

  @Test void growsTheHashTableForManyGroupsAndKeepsTheEmptyMarkerKey() {
    SourceBatch batch = manyGroups(3, 0);
    List<AggCall> calls = List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
        new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64), new AggCall(AggCall.Kind.MAX, 0, ExprType.INT64));
    List<ExprType> types = List.of(ExprType.INT64, ExprType.INT32);
    for (int[] keys : new int[][] {{0}, {1, 1}, {0, 1}}) {
      // {1, 1}: two INT32 keys of -1 pack into the all-ones word that marks empty slots
      boolean fits = keys.length == 1 || keys[0] == 1;
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(types, List.of(new PipelineStage.Aggregate(keys, calls)));
      assertEquals(fits, gpu.unsupportedReason().isEmpty(), gpu.unsupportedReason().orElse("supported"));
      if (fits) {
        assertSameResult(gpu, TransferMethod.PINNED_COPY, List.of(batch), "keys " + Arrays.toString(keys));
      }
    }
  }

  /**
   * A HAVING right after the aggregate (TPC-H Q18's {@code SUM(l_quantity) > 300}) filters the groups on the device
   * before they come back: a call against a literal on either side, COUNT, SUM, MAX, among other conjuncts, an
   * overflowing sum (which must still fail as on the CPU); the same rows as the CPU backend, and far fewer bytes read
   * back than the groups without the filter take.
   */
  @Test void havingFiltersTheGroupsOnTheDevice() {
    SourceBatch batch = manyGroups(5, 11);
    List<ExprType> types = List.of(ExprType.INT64, ExprType.INT32);
    PipelineStage.Aggregate aggregate = new PipelineStage.Aggregate(new int[] {0}, List.of(
        new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64),
        new AggCall(AggCall.Kind.MAX, 0, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64)));
    Expr count = new Expr.Column(1, ExprType.INT64);
    Expr sum = new Expr.Column(2, ExprType.INT64);
    Expr max = new Expr.Column(3, ExprType.INT64);
    Expr counted = new Expr.Column(4, ExprType.INT64);
    List<Expr> havings = List.of(
        new Expr.Compare(Expr.CompareOp.GT, sum, new Expr.Literal(3L, ExprType.INT64)),
        new Expr.Compare(Expr.CompareOp.LE, new Expr.Literal(2L, ExprType.INT64), count),
        // the GPU applies the first conjunct, the CPU both (the second keeps every group the first does)
        new Expr.Logical(true, List.of(new Expr.Compare(Expr.CompareOp.LT, max, new Expr.Literal(-44_000L,
            ExprType.INT64)), new Expr.Compare(Expr.CompareOp.NE, max, new Expr.Literal(-1L, ExprType.INT64)))),
        new Expr.Compare(Expr.CompareOp.EQ, counted, new Expr.Literal(1L, ExprType.INT64)),
        new Expr.Compare(Expr.CompareOp.GE, max, new Expr.Literal(44_990L, ExprType.INT64)));
    long all = -1;
    for (Expr having : havings) {
      List<PipelineStage> stages = List.of(aggregate, new PipelineStage.Filter(having));
      assertTrue(GpuColumnarPipeline.filtersGroupsOnDevice(stages), having.toString());
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(types, stages);
      List<Object[]> kept = assertSameResult(gpu, TransferMethod.PINNED_COPY, List.of(batch), "HAVING " + having);
      assertTrue(!kept.isEmpty() && kept.size() < 90_000, kept.size() + " groups kept by " + having);
      if (all < 0) {
        GpuColumnarPipeline unfiltered = new GpuColumnarPipeline(types, List.of(aggregate));
        assertSameResult(unfiltered, TransferMethod.PINNED_COPY, List.of(batch), "no HAVING");
        all = unfiltered.lastRun().returnedBytes();
      }
      assertEquals(16 + GpuAggregateState.bytes(kept.size(), 4), gpu.lastRun().returnedBytes(),
          "only the kept groups come back, of " + all + " bytes for all");
    }
    BigIntVector big = longs("big", 3000, i -> i % 2 == 0 ? Long.MAX_VALUE / 1000 : 1);
    List<PipelineStage> overflow = List.of(new PipelineStage.Aggregate(new int[] {0}, List.of(
        new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.SUM, 0, ExprType.INT64))),
        new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(2, ExprType.INT64),
            new Expr.Literal(0L, ExprType.INT64))));
    assertSameResult(new GpuColumnarPipeline(List.of(ExprType.INT64), overflow), TransferMethod.PINNED_COPY,
        List.of(new SourceBatch(List.of(big), 3000)), "an overflowing sum fails on both");
  }

  /**
   * A grouped pass whose hash table does not fit the GPU memory left (here all but 1 MiB of the budget is taken)
   * runs on the CPU backend and says why: the same groups, never an out-of-memory failure.
   */
  @Test void anAggregateStateOverTheMemoryLeftRunsOnTheCpu() {
    int rows = 150_000;
    BigIntVector key = longs("k", rows, r -> (r * 7919L) % 90_000);
    List<PipelineStage> stages = List.of(new PipelineStage.Aggregate(new int[] {0},
        List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64))));
    org.spillway.gpu.device.CudaDevice device = org.spillway.gpu.device.GpuRuntime.requireDevice();
    GpuColumnarPipeline.releaseIdleResources(device);
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(List.of(ExprType.INT64), stages).withExpectedGroups(1 << 20);
    try (org.spillway.gpu.device.DeviceBuffer taken = device.allocator().allocate(
        device.allocator().availableBytes() - (1 << 20), "memory this test takes")) {
      List<Object[]> out = RandomBatches.assertSameResult(gpu, TransferMethod.PINNED_COPY,
          List.of(new SourceBatch(List.of(key), rows)), "1 MiB of GPU memory left", "");
      assertEquals(90_000, out.size());
    }
    assertTrue(gpu.lastFallback() != null && gpu.lastFallback().contains("memory"), String.valueOf(gpu.lastFallback()));
  }

  @Test void globalAggregateOverNoRowsAndStagesAfterTheAggregate() {
    SourceBatch empty = randomBatch(new RandomExprs(new Random(1)), 0);
    SourceBatch some = randomBatch(new RandomExprs(new Random(2)), 700);
    Expr never = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(0, ExprType.INT32),
        new Expr.Literal(-1000L, ExprType.INT32));
    List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64),
        new AggCall(AggCall.Kind.SUM0, 1, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
        new AggCall(AggCall.Kind.MIN, 2, DEC2));
    PipelineStage aggregate = new PipelineStage.Aggregate(new int[0], calls);
    // AVG as Calcite reduces it with Spillway's DOUBLE type: CAST(SUM AS DOUBLE) / COUNT in a projection above the
    // aggregation (on the CPU)
    Expr count = new Expr.Column(2, ExprType.INT64);
    Expr nonEmpty = new Expr.Compare(Expr.CompareOp.NE, count, new Expr.Literal(0L, ExprType.INT64));
    Expr quotient = new Expr.Arith(Expr.ArithOp.DIVIDE, new Expr.Cast(new Expr.Column(1, ExprType.INT64),
        ExprType.FLOAT64), new Expr.Cast(count, ExprType.FLOAT64), ExprType.FLOAT64);
    PipelineStage average = new PipelineStage.Project(List.of(new Expr.Case(List.of(nonEmpty), List.of(quotient),
        new Expr.Literal(-1.0, ExprType.FLOAT64)), new Expr.Column(3, DEC2)));
    for (List<SourceBatch> batches : List.of(List.<SourceBatch>of(), List.of(empty), List.of(some, empty))) {
      assertSameResult(new GpuColumnarPipeline(RandomExprs.SCHEMA, List.of(aggregate, average)),
          TransferMethod.PINNED_COPY, batches, "AVG over " + batches.size() + " batches");
      GpuColumnarPipeline filtered = new GpuColumnarPipeline(RandomExprs.SCHEMA,
          List.of(new PipelineStage.Filter(never), aggregate));
      List<Object[]> rows = assertSameResult(filtered, TransferMethod.ZERO_COPY, batches, "no row passes");
      assertEquals(1, rows.size());
      assertNull(rows.get(0)[0]);
      assertEquals(List.of(0L, 0L), Arrays.asList(rows.get(0)).subList(1, 3));
    }
  }

  @Test void sumOverflowAndArithmeticErrorsFailAsOnTheCpu() {
    BigIntVector big = longs("big", 3000, i -> Long.MAX_VALUE / 2000);
    List<SourceBatch> batches = List.of(new SourceBatch(List.of(big), 3000));
    List<ExprType> types = List.of(ExprType.INT64);
    for (int[] keys : new int[][] {{}, {0}}) {
      List<PipelineStage> sum = List.of(new PipelineStage.Aggregate(keys,
          List.of(new AggCall(AggCall.Kind.SUM, 0, ExprType.INT64))));
      ArithmeticException cpu = assertThrows(ArithmeticException.class,
          () -> new ColumnarPipeline(types, sum).run(batches, 2, () -> false));
      ArithmeticException gpu = assertThrows(ArithmeticException.class, () -> run(new GpuColumnarPipeline(types, sum),
          TransferMethod.PINNED_COPY, batches));
      assertEquals(cpu.getMessage(), gpu.getMessage());
    }
    Expr times = new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(4000L, ExprType.INT64), ExprType.INT64);
    List<PipelineStage> overflowing = List.of(new PipelineStage.Project(List.of(times)),
        new PipelineStage.Aggregate(new int[] {0}, List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64))));
    ArithmeticException e = assertThrows(ArithmeticException.class,
        () -> run(new GpuColumnarPipeline(types, overflowing), TransferMethod.PINNED_COPY, batches));
    assertTrue(e.getMessage().startsWith("INT64 overflow or division by zero in TIMES($0, 4000)"), e.getMessage());
  }

  /**
   * A HAVING over a wide (128-bit) sum filters the groups on the device too: sums beyond 64 bits of both signs,
   * compared with literals between them and equal to one, keep on the GPU the groups the CPU keeps.
   */
  @Test void havingOverAWideSumFiltersTheGroupsOnTheDevice() {
    int rows = 4096;
    int groups = 16;
    java.util.function.IntToLongFunction valueOf = r -> (r % groups % 3 == 0 ? -1 : 1)
        * (Long.MAX_VALUE / 2 - r * 7L - r % groups);
    BigIntVector key = longs("k", rows, r -> r % groups);
    BigIntVector value = longs("v", rows, valueOf);
    java.math.BigInteger[] sums = new java.math.BigInteger[groups];
    java.util.Arrays.fill(sums, java.math.BigInteger.ZERO);
    for (int r = 0; r < rows; r++) {
      sums[r % groups] = sums[r % groups].add(java.math.BigInteger.valueOf(valueOf.applyAsLong(r)));
    }
    java.math.BigInteger[] sorted = sums.clone();
    java.util.Arrays.sort(sorted);
    List<ExprType> types = List.of(ExprType.INT64, ExprType.decimal(2));
    PipelineStage.Aggregate aggregate = new PipelineStage.Aggregate(new int[] {0}, List.of(
        new AggCall(AggCall.Kind.SUM, 1, ExprType.BIG_DECIMAL)));
    Expr sum = new Expr.Column(1, ExprType.BIG_DECIMAL);
    for (Expr.CompareOp op : List.of(Expr.CompareOp.GT, Expr.CompareOp.LE, Expr.CompareOp.EQ, Expr.CompareOp.GE)) {
      java.math.BigInteger at = op == Expr.CompareOp.EQ ? sorted[3] : sorted[groups / 2].add(java.math.BigInteger.ONE);
      // GE's literal has more decimals than the sums (a scalar subquery's share of a total, as in Q11)
      java.math.BigDecimal literal = op == Expr.CompareOp.GE
          ? new java.math.BigDecimal(sorted[groups / 2].multiply(java.math.BigInteger.valueOf(1000)).add(
              java.math.BigInteger.valueOf(371)), 5) : new java.math.BigDecimal(at, 2);
      Expr having = new Expr.Compare(op, sum, new Expr.Literal(literal, ExprType.BIG_DECIMAL));
      List<PipelineStage> stages = List.of(aggregate, new PipelineStage.Filter(having));
      assertTrue(GpuColumnarPipeline.filtersGroupsOnDevice(stages), having.toString());
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(types, stages);
      List<Object[]> kept = assertSameResult(gpu, TransferMethod.PINNED_COPY,
          List.of(new SourceBatch(List.of(key, value), rows)), "HAVING " + having);
      assertTrue(!kept.isEmpty() && kept.size() < groups, kept.size() + " groups kept by " + having);
      assertEquals(16 + GpuAggregateState.bytes(kept.size(), 1), gpu.lastRun().returnedBytes(),
          "only the kept groups come back");
    }
  }

  /**
   * 150 000 rows of a key k (90 000 groups, -1 among them) and a small INT s: {@code r % spread - 1}, NULL in every
   * {@code nullEvery}th row (0: none).
   */
  private SourceBatch manyGroups(int spread, int nullEvery) {
    int rows = 150_000;
    BigIntVector key = new BigIntVector("k", allocator);
    IntVector small = new IntVector("s", allocator);
    vectors.add(key);
    vectors.add(small);
    key.allocateNew(rows);
    small.allocateNew(rows);
    for (int r = 0; r < rows; r++) {
      key.set(r, (r * 7919L) % 90_000 - 45_000);
      if (nullEvery > 0 && r % nullEvery == 0) {
        small.setNull(r);
      } else {
        small.set(r, r % spread - 1);
      }
    }
    key.setValueCount(rows);
    small.setValueCount(rows);
    return new SourceBatch(List.of(key, small), rows);
  }

  /** A column of {@code rows} longs, {@code value.applyAsLong(r)} in row r, closed after the test. */
  private BigIntVector longs(String name, int rows, java.util.function.IntToLongFunction value) {
    BigIntVector vector = new BigIntVector(name, allocator);
    vectors.add(vector);
    vector.allocateNew(rows);
    for (int r = 0; r < rows; r++) {
      vector.set(r, value.applyAsLong(r));
    }
    vector.setValueCount(rows);
    return vector;
  }

  private static List<ColumnBatch> run(GpuColumnarPipeline pipeline, TransferMethod method, List<SourceBatch> batches) {
    return RandomBatches.run(pipeline, method, batches);
  }

  private static List<Object[]> assertSameResult(GpuColumnarPipeline gpu, TransferMethod method,
      List<SourceBatch> batches, String where) {
    return RandomBatches.assertSameResult(gpu, method, batches, where, null);
  }

  private SourceBatch randomBatch(RandomExprs gen, int rows) {
    return data.batch(gen, rows, false);
  }
}
