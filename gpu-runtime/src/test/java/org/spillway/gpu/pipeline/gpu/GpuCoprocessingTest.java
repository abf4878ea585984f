package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.RandomExprs;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.vector.ExprType;

/**
 * Pipelines whose scan the GPU shares with the CPU workers ({@link GpuColumnarPipeline#withCoprocessing}) against
 * the CPU backend alone, on fresh random data with and without NULLs, over many batches so that both sides take
 * some: grouped and global aggregations (the two sides' groups merged, then a HAVING-like filter) and pipelines
 * returning rows (the same batches in the same order).
 */
@GpuTest
class GpuCoprocessingTest {
  private static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(1 << 16);
  private static final ExprType DEC2 = ExprType.decimal(2);
  private static final int[][] KEY_CHOICES = {{}, {2}, {2, 3}, {0}, {4}};

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

  @Test void sharedAggregationsMatchTheCpuBackend() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    int supported = 0;
    for (int attempt = 0; attempt < 300 && supported < 12; attempt++) {
      int[] keys = KEY_CHOICES[random.nextInt(KEY_CHOICES.length)];
      List<Expr> exprs = List.of(gen.int64(1), gen.decimal(2), new Expr.Column(6, ExprType.STRING),
          new Expr.Column(4, ExprType.DATE), new Expr.Column(0, ExprType.INT32));
      List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 1, DEC2),
          new AggCall(AggCall.Kind.SUM0, 0, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
          new AggCall(AggCall.Kind.MIN, 3, ExprType.DATE), new AggCall(AggCall.Kind.MAX, 1, DEC2));
      List<PipelineStage> stages = List.of(new PipelineStage.Filter(gen.bool(2)), new PipelineStage.Project(exprs),
          new PipelineStage.Aggregate(keys, calls), new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.GT,
              new Expr.Column(keys.length + 2, ExprType.INT64), new Expr.Literal(1L, ExprType.INT64))));
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages).withTransferOptions(SMALL_CHUNKS)
          .withCoprocessing(true);
      if (gpu.unsupportedReason().isPresent()) {
        continue;
      }
      supported++;
      boolean nulls = random.nextBoolean();
      List<SourceBatch> batches = batches(gen, random, nulls);
      String where = "seed " + seed + ", attempt " + attempt + ", nulls " + nulls + ", stages " + stages;
      RandomBatches.assertSameResult(gpu, TransferMethod.PINNED_COPY, batches, where, "NULL flags");
      if (gpu.lastShare() == null) {
        // both failed (an overflow, say): the run threw before it could say how it shared
        assertThrows(ArithmeticException.class, () -> gpu.cpuPipeline().run(batches, 2, () -> false), where);
        continue;
      }
      checkShare(gpu, batches, where);
    }
    assertTrue(supported >= 12, "only " + supported + " pipelines compiled for the GPU (seed " + seed + ")");
  }

  @Test void sharedRowsKeepTheCpuBackendsBatchesAndOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    int supported = 0;
    for (int attempt = 0; attempt < 300 && supported < 12; attempt++) {
      List<PipelineStage> stages = List.of(new PipelineStage.Filter(gen.bool(2)), new PipelineStage.Project(List.of(
          gen.int64(1), gen.decimal(2), new Expr.Column(4, ExprType.DATE))));
      TransferMethod method = attempt % 2 == 0 ? TransferMethod.PINNED_COPY : TransferMethod.ZERO_COPY;
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages).withTransferOptions(SMALL_CHUNKS)
          .withCoprocessing(true);
      if (gpu.unsupportedReason().isPresent()) {
        continue;
      }
      supported++;
      boolean nulls = random.nextBoolean();
      List<SourceBatch> batches = batches(gen, random, nulls);
      String where = "seed " + seed + ", attempt " + attempt + ", " + method + ", nulls " + nulls + ", stages "
          + stages;
      if (RandomBatches.assertSameBatches(gpu, method, batches, where) != null) {
        checkShare(gpu, batches, where);
      }
    }
    assertTrue(supported >= 12, "only " + supported + " pipelines compiled for the GPU (seed " + seed + ")");
  }

  /**
   * A cancel during a shared scan stops both sides: the run throws CancellationException once the flag turns, the
   * CPU's share is waited for (no worker runs on), and the same pipeline then runs to the right result.
   */
  @Test void aCancelStopsBothSidesAndTheNextRunIsWhole() {
    Random random = new Random(11);
    RandomExprs gen = new RandomExprs(random);
    List<PipelineStage> stages = List.of(new PipelineStage.Aggregate(new int[] {0},
        List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64))));
    GpuColumnarPipeline gpu = new GpuColumnarPipeline(RandomExprs.SCHEMA, stages).withTransferOptions(SMALL_CHUNKS)
        .withCoprocessing(true);
    List<SourceBatch> batches = new ArrayList<>();
    for (int b = 0; b < 40; b++) {
      batches.add(data.batch(gen, 8192, false));
    }
    java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    assertThrows(java.util.concurrent.CancellationException.class, () -> gpu.run(
        org.spillway.gpu.device.GpuRuntime.requireDevice(), TransferMethod.PINNED_COPY, batches, 4,
        () -> asked.incrementAndGet() > 6));
    RandomBatches.assertSameResult(gpu, TransferMethod.PINNED_COPY, batches, "after a cancel", null);
    checkShare(gpu, batches, "after a cancel");
  }

  /** Many batches of whole tiles (so that the GPU joins them into chunks) and a few ragged ones. */
  private List<SourceBatch> batches(RandomExprs gen, Random random, boolean nulls) {
    List<SourceBatch> batches = new ArrayList<>();
    int[] sizes = {8192, 8192, 16384, 1000, 0};
    for (int b = 8 + random.nextInt(24); b > 0; b--) {
      batches.add(data.batch(gen, sizes[random.nextInt(sizes.length)], nulls));
    }
    return batches;
  }

  private static void checkShare(GpuColumnarPipeline gpu, List<SourceBatch> batches, String where) {
    GpuColumnarPipeline.Share share = gpu.lastShare();
    assertNotNull(share, where);
    long nonEmpty = batches.stream().filter(b -> b.rows() > 0).count();
    assertTrue(share.gpu() + share.cpu() >= nonEmpty && share.gpu() + share.cpu() <= batches.size(),
        where + ": " + share + " of " + batches.size() + " batches");
    if (gpu.lastFallback() == null) {
      assertEquals(0, share.fallback(), where);
    }
  }
}
