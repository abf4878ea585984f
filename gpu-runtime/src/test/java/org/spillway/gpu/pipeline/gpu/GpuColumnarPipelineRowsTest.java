package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.RandomExprs;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * Pipelines without an aggregation (filter and project, returning rows) on the GPU against the CPU backend on
 * fresh random data with and without NULLs: random programs under both filter variants, pinned copy and
 * zero-copy and every other transfer method the device offers, cached inputs, empty input, all rows rejected
 * and all kept, ragged chunks and several stream workers, errors, cancellation. The result batches must equal
 * the CPU backend's: the same batches (one per morsel that kept a row), rows in the same order, the same
 * types, values and NULLs; and only the projected output columns may come back over the link.
 */
@GpuTest
class GpuColumnarPipelineRowsTest {
  /** 4 KiB chunks: 512 rows of 8 bytes (two tiles), so that small batches span many chunks and ragged ends. */
  private static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(4096);
  private static final ExprType DEC2 = ExprType.decimal(2);
  private static final int[] SIZES = {0, 1, 31, 255, 256, 257, 513, 1000, 4099};
  /** Two morsels of the CPU backend and a ragged third: one input batch gives three result batches. */
  private static final int MORSELS = 2 * MorselScheduler.MORSEL_ROWS + 333;

  private BufferAllocator allocator;
  private RandomBatches data;

  @BeforeEach void open() {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    data = new RandomBatches(allocator);
  }

  @AfterEach void close() {
    data.close();
    allocator.close();
  }

  @ParameterizedTest
  // both methods and variants, NULLs or not
  @MethodSource("org.spillway.gpu.pipeline.gpu.GpuColumnarPipelineTest#variants")
  void randomRowPipelinesMatchTheCpuBackendInOrder(TransferMethod method, FilterVariant variant, boolean nulls) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    int supported = 0;
    int withRows = 0;
    for (int attempt = 0; attempt < 800 && supported < 30; attempt++) {
      List<PipelineStage> stages = randomStages(gen, random);
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
          + ", stages " + stages;
      List<ColumnBatch> rows = RandomBatches.assertSameBatches(gpu, method, batches, where);
      if (rows != null && !rows.isEmpty()) {
        withRows++;
        assertTrue(gpu.lastRun().returnedBytes() > 0, where);
      }
    }
    assertTrue(supported >= 30, "only " + supported + " random pipelines compiled for the GPU (seed " + seed + ")");
    assertTrue(withRows >= 5, "only " + withRows + " pipelines returned rows (seed " + seed + ")");
  }

  /** Every transfer method the device offers, over batches in the memory the method reads natively. */
  @Test void everyTransferMethodReturnsTheCpuBackendsRows() {
    CudaDevice device = GpuRuntime.requireDevice();
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<PipelineStage> stages = fixedStages();
    int methods = 0;
    for (TransferMethod method : TransferMethod.values()) {
      if (!method.support(device).supported()) {
        continue;
      }
      methods++;
      try (BufferAllocator memory = RandomColumns.allocatorFor(method); RandomBatches own = new RandomBatches(memory)) {
        RandomExprs gen = new RandomExprs(random);
        List<SourceBatch> batches = List.of(own.batch(gen, 3000, true), own.batch(gen, 0, true),
            own.batch(gen, 1777, true));
        for (FilterVariant variant : FilterVariant.values()) {
          GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages)
              .withTransferOptions(SMALL_CHUNKS).withFilterVariant(variant);
          RandomBatches.assertSameBatches(gpu, method, batches, "seed " + seed + ", " + method + ", " + variant);
        }
      }
    }
    assertTrue(methods >= 4, methods + " transfer methods supported");
  }

  @Test void cachedInputsAreReadInPlace() {
    long seed = System.nanoTime();
    RandomExprs gen = new RandomExprs(new Random(seed));
    List<SourceBatch> batches = List.of(data.batch(gen, 4099, true), data.batch(gen, 1, true),
        data.batch(gen, 0, true), data.batch(gen, 1500, true));
    try (GpuColumnCache cache = new GpuColumnCache(GpuRuntime.requireDevice(), 1L << 30)) {
      for (FilterVariant variant : FilterVariant.values()) {
        GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, fixedStages())
            .withTransferOptions(SMALL_CHUNKS).withFilterVariant(variant).withCache(cache);
        for (String run : new String[] {"cold", "warm"}) {
          for (TransferMethod method : List.of(TransferMethod.PINNED_COPY, TransferMethod.ZERO_COPY)) {
            String where = "seed " + seed + ", " + variant + ", " + run + ", " + method;
            RandomBatches.assertSameBatches(gpu, method, batches, where);
            if (!run.equals("cold") || method != TransferMethod.PINNED_COPY) {
              assertEquals(0, gpu.lastRun().bytes(), where + ": every input is resident");
              assertTrue(gpu.lastRun().cachedBytes() > 0, where);
            }
          }
        }
      }
      assertTrue(cache.hits() > 0 && cache.misses() > 0, cache.hits() + " hits, " + cache.misses() + " misses");
    }
  }

  /**
   * Batches all resident in the column cache run as groups of consecutive batches over chunk tables (one launch per
   * group, each batch starting a tile, ragged batches followed by others): 64 KiB chunks make several groups of the
   * many small batches, and the default chunks few.
   */
  @Test void residentBatchesRunInGroupsOverChunkTables() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    List<SourceBatch> batches = new ArrayList<>();
    for (int b = 0; b < 40; b++) {
      batches.add(data.batch(gen, SIZES[1 + random.nextInt(SIZES.length - 1)], random.nextBoolean()));
    }
    try (GpuColumnCache cache = new GpuColumnCache(GpuRuntime.requireDevice(), 1L << 30)) {
      for (TransferOptions options : List.of(TransferOptions.DEFAULT.withChunkBytes(64 << 10), TransferOptions.DEFAULT)) {
        for (FilterVariant variant : FilterVariant.values()) {
          GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, fixedStages())
              .withTransferOptions(options).withFilterVariant(variant).withCache(cache);
          for (String run : new String[] {"cold", "warm", "warm again"}) {
            String where = "seed " + seed + ", " + variant + ", " + run + ", " + options;
            RandomBatches.assertSameBatches(gpu, TransferMethod.PINNED_COPY, batches, where);
            if (!run.equals("cold")) {
              assertEquals(0, gpu.lastRun().bytes(), where + ": every input is resident");
            }
          }
        }
      }
    }
  }

  @Test void emptyInputReadsAndReturnsNothing() {
    SourceBatch empty = data.batch(new RandomExprs(new Random(System.nanoTime())), 0, true);
    for (List<SourceBatch> batches : List.of(List.<SourceBatch>of(), List.of(empty), List.of(empty, empty))) {
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, fixedStages());
      assertEquals(List.of(), RandomBatches.run(gpu, TransferMethod.ZERO_COPY, batches));
      assertEquals(List.of(0L, 0L), List.of(gpu.lastRun().bytes(), gpu.lastRun().returnedBytes()));
    }
  }

  /** A filter no row passes returns nothing but the tiles' counts; one every row passes returns every row. */
  @Test void allRowsRejectedAndAllRowsKeptAcrossMorsels() {
    long seed = System.nanoTime();
    RandomExprs gen = new RandomExprs(new Random(seed));
    List<SourceBatch> batches = List.of(data.batch(gen, MORSELS, true), data.batch(gen, 700, true));
    Expr a = new Expr.Column(1, ExprType.INT64);
    Expr never = new Expr.Compare(Expr.CompareOp.LT, a, new Expr.Literal(-1000L, ExprType.INT64));
    Expr always = new Expr.Logical(false, List.of(new Expr.IsNull(a, false), new Expr.IsNull(a, true)));
    List<Expr> outputs = List.of(new Expr.Column(4, ExprType.DATE), a, new Expr.Column(2, DEC2));
    long rows = MORSELS + 700;
    for (FilterVariant variant : FilterVariant.values()) {
      for (TransferMethod method : List.of(TransferMethod.PINNED_COPY, TransferMethod.ZERO_COPY)) {
        String where = "seed " + seed + ", " + variant + ", " + method;
        GpuColumnarPipeline none = new GpuColumnarPipeline(RandomExprs.SCHEMA, List.of(new PipelineStage.Filter(never),
            new PipelineStage.Project(outputs))).withFilterVariant(variant);
        assertEquals(List.of(), RandomBatches.assertSameBatches(none, method, batches, where));
        assertTrue(none.lastRun().returnedBytes() <= 4 * (rows / GpuRowsLayout.TILE_ROWS + 2 * batches.size()),
            where + ": only counts come back, " + none.lastRun().returnedBytes() + " bytes");
        GpuColumnarPipeline all = new GpuColumnarPipeline(RandomExprs.SCHEMA, List.of(new PipelineStage.Filter(always),
            new PipelineStage.Project(outputs))).withFilterVariant(variant);
        List<ColumnBatch> got = RandomBatches.assertSameBatches(all, method, batches, where);
        assertEquals(4, got.size(), where + ": three morsels of the first batch, one of the second");
        assertEquals(rows, got.stream().mapToLong(ColumnBatch::rows).sum(), where);
      }
    }
  }

  /**
   * Chunks staged whole in GPU memory whose selected rows exceed one output window come back window by window:
   * windows of one and three tiles under chunks of many, streamed and resident (over chunk tables), every row kept
   * or some, rows and NULLs as on the CPU, in order.
   */
  @Test void chunksSelectingMoreRowsThanAWindowComeBackInSeveralWindows() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    List<SourceBatch> batches = new ArrayList<>();
    for (int rows : new int[] {MORSELS, 257, 7000, 1, 4099}) {
      batches.add(data.batch(gen, rows, random.nextBoolean()));
    }
    Expr a = new Expr.Column(1, ExprType.INT64);
    Expr always = new Expr.Logical(false, List.of(new Expr.IsNull(a, false), new Expr.IsNull(a, true)));
    List<Expr> outputs = List.of(new Expr.Column(4, ExprType.DATE), a, new Expr.Column(2, DEC2));
    List<List<PipelineStage>> pipelines = List.of(fixedStages(),
        List.of(new PipelineStage.Filter(always), new PipelineStage.Project(outputs)));
    long[] windowBytes = {1, 3 * GpuRowsLayout.TILE_ROWS * 8};  // one tile, and about a tile of three columns
    try (GpuColumnCache cache = new GpuColumnCache(GpuRuntime.requireDevice(), 1L << 30)) {
      for (List<PipelineStage> stages : pipelines) {
        for (long window : windowBytes) {
          for (String run : new String[] {"streamed", "cold", "warm"}) {
            TransferMethod method = random.nextBoolean() ? TransferMethod.PINNED_COPY : TransferMethod.ZERO_COPY;
            GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages)
                .withRowsBuffers(4L << 20, window).withFilterVariant(random.nextBoolean() ? FilterVariant.BRANCHING
                    : FilterVariant.PREDICATION);
            if (!run.equals("streamed")) {
              gpu.withCache(cache);
            }
            RandomBatches.assertSameBatches(gpu, run.equals("warm") ? TransferMethod.PINNED_COPY : method, batches,
                "seed " + seed + ", window bytes " + window + ", " + run + ", " + method + ", " + stages);
          }
        }
      }
    }
  }

  /** Chunks of one and several tiles, ragged batch ends, morsels split across chunks, two stream workers. */
  @Test void raggedChunksAndSeveralStreamWorkersKeepInputOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    List<SourceBatch> batches = new ArrayList<>();
    for (int rows : new int[] {1, 255, 256, 257, 511, 513, MORSELS, 0, 7000}) {
      batches.add(data.batch(gen, rows, true));
    }
    Collections.shuffle(batches, random);
    long[] chunkBytes = {4096, 7000, 12288, TransferOptions.DEFAULT.chunkBytes()};  // 2, 3, 6 tiles, 513 tiles
    for (long bytes : chunkBytes) {
      for (int workers : new int[] {1, 2}) {
        FilterVariant variant = random.nextBoolean() ? FilterVariant.BRANCHING : FilterVariant.PREDICATION;
        TransferMethod method = random.nextBoolean() ? TransferMethod.PINNED_COPY : TransferMethod.ZERO_COPY;
        GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, fixedStages())
            .withTransferOptions(TransferOptions.DEFAULT.withChunkBytes(bytes)).withStreamWorkers(workers)
            .withFilterVariant(variant);
        RandomBatches.assertSameBatches(gpu, method, batches, "seed " + seed + ", chunk bytes " + bytes + ", "
            + workers + " workers, " + variant + ", " + method);
      }
    }
  }

  /**
   * Batches of whole tiles travel together in one chunk under pinned copy (GpuBatchStreamer.groups): their rows
   * stay in their batches and morsels, and NULL bitmaps continue across them.
   */
  @Test void batchesJoinedIntoOneChunkKeepTheirRowsAndNulls() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    List<SourceBatch> batches = new ArrayList<>();
    for (int rows : new int[] {256, 512, MORSELS, 1024, 300, 256, 768, 0, 2048, 1}) {
      batches.add(data.batch(gen, rows, rows == 512 || random.nextBoolean()));
    }
    for (int workers : new int[] {1, 2}) {
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, fixedStages()).withStreamWorkers(workers);
      RandomBatches.assertSameBatches(gpu, TransferMethod.PINNED_COPY, batches, "seed " + seed + ", " + workers
          + " workers");
    }
  }

  /** Only the projected columns come back: not the wide columns the filter alone reads. */
  @Test void onlyTheProjectedOutputComesBack() {
    RandomExprs gen = new RandomExprs(new Random(System.nanoTime()));
    List<SourceBatch> batches = List.of(data.batch(gen, 20_000, false), data.batch(gen, 9_000, false));
    Expr wide = new Expr.Logical(false, List.of(
        new Expr.Compare(Expr.CompareOp.GE, new Expr.Column(1, ExprType.INT64),
            new Expr.Literal(-1000L, ExprType.INT64)),
        new Expr.Compare(Expr.CompareOp.GE, new Expr.Column(2, DEC2), new Expr.Literal(-100_000L, DEC2))));
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, List.of(new PipelineStage.Filter(wide),
        new PipelineStage.Project(List.of(new Expr.Column(0, ExprType.INT32)))));
    List<ColumnBatch> got = RandomBatches.assertSameBatches(gpu, TransferMethod.ZERO_COPY, batches, "every row");
    assertEquals(29_000, got.stream().mapToLong(ColumnBatch::rows).sum());
    long returned = gpu.lastRun().returnedBytes();
    assertTrue(returned >= 4 * 29_000L && returned <= 4 * 29_000L + 4 * (29_000 / 256 + 8),
        returned + " bytes came back for 29 000 INT32 values (no NULL flags: no column holds NULLs)");
    assertTrue(gpu.lastRun().bytes() >= 16 * 29_000L, gpu.lastRun().bytes() + " bytes streamed");
  }

  @Test void errorsOfSelectedRowsFailAsOnTheCpuAndOfRejectedRowsDoNot() {
    long seed = System.nanoTime();
    RandomExprs gen = new RandomExprs(new Random(seed));
    List<SourceBatch> batches = List.of(data.batch(gen, 3000, true), data.batch(gen, 600, true));
    Expr a = new Expr.Column(1, ExprType.INT64);
    Expr small = new Expr.Column(0, ExprType.INT32);
    Expr big = new Expr.Arith(Expr.ArithOp.TIMES, a, new Expr.Literal(Long.MAX_VALUE / 20, ExprType.INT64),
        ExprType.INT64);
    Expr nonZero = new Expr.Compare(Expr.CompareOp.NE, small, new Expr.Literal(0L, ExprType.INT32));
    Expr divide = new Expr.Arith(Expr.ArithOp.DIVIDE, a, new Expr.Cast(small, ExprType.INT64), ExprType.INT64);
    Expr int32 = new Expr.Arith(Expr.ArithOp.TIMES, small, new Expr.Literal(100_000_000L, ExprType.INT32),
        ExprType.INT32);
    Expr scale = new Expr.Cast(a, ExprType.decimal(18));
    Expr tiny = new Expr.InRanges(a, new long[] {-1}, new long[] {1}, null);
    Expr positive = new Expr.Compare(Expr.CompareOp.GT, a, new Expr.Literal(0L, ExprType.INT64));
    List<Object[]> failing = List.of(
        new Object[] {positive, big, "INT64 overflow or division by zero in TIMES($1, " + Long.MAX_VALUE / 20 + ")"},
        new Object[] {positive, divide, "INT64 overflow or division by zero in DIVIDE($1, "},
        new Object[] {positive, int32, "INTEGER overflow"},
        new Object[] {positive, scale, "overflow casting INT64 to DECIMAL(18)"});
    for (FilterVariant variant : FilterVariant.values()) {
      for (TransferMethod method : List.of(TransferMethod.PINNED_COPY, TransferMethod.ZERO_COPY)) {
        String where = "seed " + seed + ", " + variant + ", " + method;
        for (Object[] f : failing) {
          List<PipelineStage> stages = List.of(new PipelineStage.Filter((Expr) f[0]),
              new PipelineStage.Project(List.of(small, (Expr) f[1])));
          ArithmeticException cpu = assertThrows(ArithmeticException.class,
              () -> new ColumnarPipeline(RandomExprs.SCHEMA, stages).run(batches, 2, () -> false), where);
          GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages).withFilterVariant(variant)
              .withTransferOptions(SMALL_CHUNKS);
          ArithmeticException e = assertThrows(ArithmeticException.class, () -> RandomBatches.run(gpu, method,
              batches), where + ": " + f[1]);
          assertTrue(cpu.getMessage().startsWith((String) f[2]), cpu.getMessage());
          assertTrue(e.getMessage().startsWith((String) f[2]) && e.getMessage().endsWith("(on the GPU)"),
              where + ": " + e.getMessage());
        }
        // the same expressions over rows the filter keeps only where they cannot fail
        List<PipelineStage> guarded = List.of(new PipelineStage.Filter(new Expr.Logical(true, List.of(tiny, nonZero))),
            new PipelineStage.Project(List.of(small, big, divide, scale)));
        List<ColumnBatch> rows = RandomBatches.assertSameBatches(new GpuColumnarPipeline(RandomExprs.SCHEMA, guarded)
            .withFilterVariant(variant).withTransferOptions(SMALL_CHUNKS), method, batches, where + ", guarded");
        assertTrue(rows != null && !rows.isEmpty(), where + ": the guarded pipeline returns rows");
      }
    }
  }

  @Test void cancellationStopsTheRunAndGivesEverythingBack() {
    RandomExprs gen = new RandomExprs(new Random(System.nanoTime()));
    List<SourceBatch> batches = new ArrayList<>();
    for (int b = 0; b < 6; b++) {
      batches.add(data.batch(gen, 2000, true));
    }
    AtomicInteger asked = new AtomicInteger();
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, fixedStages())
        .withTransferOptions(SMALL_CHUNKS);
    assertThrows(CancellationException.class, () -> gpu.run(GpuRuntime.requireDevice(), TransferMethod.PINNED_COPY,
        batches, 2, () -> asked.incrementAndGet() > 3));
    RandomBatches.assertSameBatches(gpu, TransferMethod.PINNED_COPY, batches, "after a cancelled run");
  }

  /** Filter, project with every output kind (computed BOOLEAN, NULL literal), filter again, project again. */
  private static List<PipelineStage> fixedStages() {
    Expr a = new Expr.Column(1, ExprType.INT64);
    Expr recent = new Expr.Compare(Expr.CompareOp.GE, new Expr.Column(4, ExprType.DATE),
        new Expr.Literal(9000L, ExprType.DATE));
    Expr filter = new Expr.Logical(false, List.of(recent, new Expr.IsNull(a, false),
        new Expr.InRanges(new Expr.Column(6, ExprType.STRING), new long[] {2}, new long[] {5}, null)));
    Expr sum = new Expr.Arith(Expr.ArithOp.PLUS, a, new Expr.Cast(new Expr.Column(0, ExprType.INT32), ExprType.INT64),
        ExprType.INT64);
    Expr price = new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Column(2, DEC2), a, DEC2);
    Expr positive = new Expr.Compare(Expr.CompareOp.GT, a, new Expr.Literal(0L, ExprType.INT64));
    List<Expr> project = List.of(sum, price, new Expr.Column(4, ExprType.DATE), new Expr.Column(6, ExprType.STRING),
        positive, new Expr.Literal(null, ExprType.INT64), new Expr.Column(0, ExprType.INT32), new Expr.ExtractYear(
            new Expr.Column(4, ExprType.DATE)));
    Expr notNegative = new Expr.Not(new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(-40L, ExprType.INT64)));
    List<Expr> again = List.of(new Expr.Column(3, ExprType.STRING), new Expr.Column(1, DEC2),
        new Expr.Column(4, ExprType.BOOLEAN), new Expr.Column(5, ExprType.INT64), new Expr.Column(2, ExprType.DATE),
        new Expr.Column(6, ExprType.INT32), new Expr.Column(7, ExprType.INT64), new Expr.Column(0, ExprType.INT64));
    return List.of(new PipelineStage.Filter(filter), new PipelineStage.Project(project),
        new PipelineStage.Filter(notNegative), new PipelineStage.Project(again));
  }

  /** A random filter, a random projection of every output kind, and sometimes a second filter and projection. */
  private static List<PipelineStage> randomStages(RandomExprs gen, Random random) {
    List<Expr> exprs = new ArrayList<>(List.of(gen.int64(1), gen.decimal(2), gen.bool(1),
        new Expr.Column(6, ExprType.STRING), new Expr.Column(4, ExprType.DATE), new Expr.Column(0, ExprType.INT32),
        new Expr.Literal(random.nextBoolean() ? null : 7L, ExprType.INT64)));
    Collections.shuffle(exprs, random);
    exprs = exprs.subList(0, 1 + random.nextInt(exprs.size()));
    List<PipelineStage> stages = new ArrayList<>(List.of(new PipelineStage.Filter(gen.bool(2)),
        new PipelineStage.Project(exprs)));
    int bool = exprs.stream().map(Expr::type).toList().indexOf(ExprType.BOOLEAN);
    if (bool >= 0 && random.nextBoolean()) {
      List<Expr> subset = new ArrayList<>();
      for (int i = exprs.size() - 1; i >= 0; i -= 1 + random.nextInt(2)) {
        subset.add(new Expr.Column(i, exprs.get(i).type()));
      }
      stages.add(new PipelineStage.Filter(new Expr.Column(bool, ExprType.BOOLEAN)));
      stages.add(new PipelineStage.Project(subset));
    }
    return stages;
  }
}
