package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.bench.PipelineWorkloads;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.RandomExprs;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;

/**
 * The GPU column cache: cached runs (cold, which fill it, and warm, which transfer nothing) return exactly
 * what uncached runs and the CPU return on random pipelines with NULLs; eviction follows LRU order within a
 * small capacity; concurrent pipelines share one cache; clear and close give every byte back.
 */
@GpuTest
class GpuColumnCacheGpuTest {
  private static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(8 << 10);

  private BufferAllocator allocator;
  private RandomBatches data;
  private final CudaDevice device = GpuRuntime.device().orElse(null);

  @BeforeEach void open() {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    data = new RandomBatches(allocator);
  }

  @AfterEach void close() {
    data.close();
    allocator.close();
  }

  @Test void cachedRunsEqualUncachedOnRandomPipelines() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    List<SourceBatch> batches = new ArrayList<>();
    for (int rows : new int[] {3000, 1, 777, 0, 2048}) {
      batches.add(data.batch(gen, rows, true));
    }
    try (GpuColumnCache cache = new GpuColumnCache(device, 1L << 30)) {
      int compared = 0;
      for (int attempt = 0; attempt < 400 && compared < 20; attempt++) {
        List<PipelineStage> stages = randomStages(gen, random);
        GpuColumnarPipeline uncached = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages)
            .withTransferOptions(SMALL_CHUNKS).withFilterVariant(random.nextBoolean() ? FilterVariant.BRANCHING
                : FilterVariant.PREDICATION);
        if (uncached.unsupportedReason().isPresent()) {
          continue;
        }
        compared++;
        String where = "seed " + seed + ", attempt " + attempt + ", " + stages;
        TransferMethod method = random.nextBoolean() ? TransferMethod.PINNED_COPY : TransferMethod.ZERO_COPY;
        List<Object[]> expected;
        try {
          expected = RandomBatches.rowsOf(RandomBatches.run(uncached, method, batches));
        } catch (ArithmeticException e) {
          uncached.withCache(cache);
          assertThrows(ArithmeticException.class, () -> RandomBatches.run(uncached, method, batches), where);
          continue;
        }
        RandomBatches.assertSameRows(RandomBatches.rowsOf(uncached.cpuPipeline().run(batches, 2, () -> false)),
            expected, where + " (uncached vs CPU)");
        GpuColumnarPipeline cached = uncached.withCache(cache);
        for (String run : new String[] {"cold", "warm"}) {
          List<Object[]> actual = RandomBatches.rowsOf(RandomBatches.run(cached, method, batches));
          RandomBatches.assertSameRows(expected, actual, where + " (" + run + " cache)");
        }
        if (cached.lastFallback() == null) {  // a nullable 64-bit key has no room for its NULL flag: CPU
          assertEquals(0, cached.lastRun().bytes(), where + ": a warm run transfers nothing");
          assertTrue(cached.lastRun().cachedBytes() > 0, where);
        }
      }
      assertTrue(compared >= 20, "only " + compared + " pipelines compared (seed " + seed + ")");
      assertTrue(cache.hits() > 0 && cache.misses() > 0, cache.hits() + " hits, " + cache.misses() + " misses");
    }
  }

  @Test void evictsTheLeastRecentlyUsedWithinTheCapacity() {
    long seed = System.nanoTime();
    List<List<SourceBatch>> batch = new ArrayList<>();
    for (int b = 0; b < 3; b++) {
      batch.add(PipelineWorkloads.lineitem(allocator, 10_000, seed + b, data.owned()));
    }
    long perBatch = 10_000L * (4 + 3 * 8);  // the four Q6 columns of one batch
    GpuColumnarPipeline q6 = new GpuColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, PipelineWorkloads.q6(
        PipelineWorkloads.day(1993, 1, 1), PipelineWorkloads.day(1996, 1, 1), 2, 9, 4000));
    try (GpuColumnCache cache = new GpuColumnCache(device, 2 * perBatch)) {
      q6.withCache(cache);
      // A, B fill; A hits (and becomes most recent); C evicts B; A hits; B misses again
      String[] names = {"A", "B", "A", "C", "A", "B"};
      int[] order = {0, 1, 0, 2, 0, 1};
      long[][] expected = {{0, 4, 0}, {0, 4, 0}, {4, 0, 0}, {0, 4, 4}, {4, 0, 0}, {0, 4, 4}};
      for (int i = 0; i < order.length; i++) {
        long hits = cache.hits();
        long misses = cache.misses();
        long evictions = cache.evictions();
        RandomBatches.assertSameResult(q6, TransferMethod.PINNED_COPY, batch.get(order[i]), "seed " + seed + ", run "
            + names[i], null);
        assertEquals(List.of(expected[i][0], expected[i][1], expected[i][2]), List.of(cache.hits() - hits,
            cache.misses() - misses, cache.evictions() - evictions), "hits, misses, evictions of run " + names[i]);
        assertTrue(cache.residentBytes() <= cache.capacityBytes(), cache.residentBytes() + " resident");
        assertEquals(0, cache.pinnedBytes(), "bytes pinned once run " + names[i] + " ended");
      }
      List<SourceBatch> all = new ArrayList<>();
      batch.forEach(all::addAll);
      RandomBatches.assertSameResult(q6, TransferMethod.ZERO_COPY, all, "seed " + seed + ", more than fits", null);
      assertTrue(cache.residentBytes() <= cache.capacityBytes(), cache.residentBytes() + " resident");
      cache.clear();
      assertEquals(0, cache.residentBytes());
      assertEquals(0, cache.entryCount());
      RandomBatches.assertSameResult(q6, TransferMethod.PINNED_COPY, batch.get(0), "after clear", null);
      assertEquals(4, cache.entryCount(), "a run after clear caches again");
    }
  }

  @Test void concurrentPipelinesShareOneCache() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    List<SourceBatch> lineitem = new ArrayList<>();
    List<SourceBatch> randomSchema = new ArrayList<>();
    for (int b = 0; b < 4; b++) {
      lineitem.addAll(PipelineWorkloads.lineitem(allocator, 20_000 + b, seed + b, data.owned()));
      randomSchema.add(data.batch(gen, 1500 + b, true));
    }
    List<GpuColumnarPipeline> pipelines = new ArrayList<>();
    List<List<SourceBatch>> inputs = new ArrayList<>();
    for (FilterVariant variant : FilterVariant.values()) {
      pipelines.add(new GpuColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, PipelineWorkloads.q6())
          .withFilterVariant(variant));
      pipelines.add(new GpuColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, PipelineWorkloads.q1())
          .withFilterVariant(variant));
      inputs.add(lineitem);
      inputs.add(lineitem);
    }
    while (pipelines.size() < 10) {
      GpuColumnarPipeline p = new GpuColumnarPipeline(RandomExprs.SCHEMA, randomStages(gen, random));
      if (p.unsupportedReason().isEmpty()) {
        try {
          p.cpuPipeline().run(randomSchema, 2, () -> false);
        } catch (ArithmeticException e) {
          continue;  // failing pipelines are covered elsewhere; here every run must return
        }
        pipelines.add(p);
        inputs.add(randomSchema);
      }
    }
    List<List<Object[]>> expected = new ArrayList<>();
    for (int i = 0; i < pipelines.size(); i++) {
      expected.add(RandomBatches.rowsOf(pipelines.get(i).cpuPipeline().run(inputs.get(i), 2, () -> false)));
    }
    long total = 0;
    for (SourceBatch b : lineitem) {
      total += b.rows() * (4L + 8 * 5 + 4 + 4);
    }
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try (GpuColumnCache cache = new GpuColumnCache(device, total / 2)) {  // too small: entries are evicted while others read
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        long threadSeed = seed + 100 + t;
        runs.add(threads.submit(() -> {
          Random r = new Random(threadSeed);
          for (int i = 0; i < 12; i++) {
            int p = r.nextInt(pipelines.size());
            // each thread its own pipeline object: a pipeline keeps its last run's statistics
            GpuColumnarPipeline mine = new GpuColumnarPipeline(
                inputs.get(p) == lineitem ? PipelineWorkloads.LINEITEM_TYPES : RandomExprs.SCHEMA,
                pipelines.get(p).cpuPipeline().stages()).withFilterVariant(pipelines.get(p).filterVariant())
                .withCache(cache);
            TransferMethod method = r.nextBoolean() ? TransferMethod.PINNED_COPY : TransferMethod.ZERO_COPY;
            RandomBatches.assertSameRows(expected.get(p), RandomBatches.rowsOf(RandomBatches.run(mine, method,
                inputs.get(p))), "seed " + seed + ", thread " + threadSeed + ", pipeline " + p);
          }
          return null;
        }));
      }
      for (Future<?> f : runs) {
        f.get();
      }
      assertTrue(cache.residentBytes() <= cache.capacityBytes());
      assertEquals(0, cache.pinnedBytes(), "bytes pinned once every run ended (seed " + seed + ")");
      assertTrue(cache.hits() > 0 && cache.evictions() > 0, cache.hits() + " hits, " + cache.evictions()
          + " evictions (seed " + seed + ")");
    } finally {
      threads.shutdown();
    }
  }

  private static List<PipelineStage> randomStages(RandomExprs gen, Random random) {
    int[][] keyChoices = {{}, {2}, {0}, {1}};
    List<Expr> exprs = List.of(gen.int64(1), gen.decimal(2), new Expr.Column(6, ExprType.STRING),
        new Expr.Column(4, ExprType.DATE));
    List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 1, ExprType.decimal(2)),
        new AggCall(AggCall.Kind.COUNT, 0, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
        new AggCall(AggCall.Kind.MIN, 3, ExprType.DATE), new AggCall(AggCall.Kind.MAX, 0, ExprType.INT64));
    return List.of(new PipelineStage.Filter(gen.bool(2)), new PipelineStage.Project(exprs),
        new PipelineStage.Aggregate(keyChoices[random.nextInt(keyChoices.length)], calls));
  }
}
