package org.spillway.gpu.pipeline.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.RandomExprs;
import org.spillway.gpu.expr.RowReference;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.ScanClaims;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * A pipeline run in two parts over a shared scan (the GPU's front, the CPU's back: here both on the CPU backend) and
 * combined gives what one run gives: the same batches in the same order for rows, the same groups for aggregations
 * (merged SUM, SUM0, COUNT, MIN and MAX, then the stages after the aggregation), on random data with NULLs.
 */
class ColumnarPipelinePartialsTest {
  private static final ExprType DEC2 = ExprType.decimal(2);
  private static final int[][] KEY_CHOICES = {{}, {2}, {2, 3}, {0}};

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

  @Test void rowsOfTwoPartsAreTheRowsOfOneRunInOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    for (int trial = 0; trial < 12; trial++) {
      List<SourceBatch> batches = batches(gen, random);
      ColumnarPipeline pipeline = new ColumnarPipeline(RandomExprs.SCHEMA, List.of(
          new PipelineStage.Filter(gen.bool(2)), new PipelineStage.Project(List.of(gen.int64(1),
              new Expr.Column(6, ExprType.STRING), new Expr.Column(4, ExprType.DATE)))));
      String where = "seed " + seed + ", trial " + trial + ", " + pipeline.stages();
      List<ColumnBatch> expected;
      try {
        expected = pipeline.run(batches, 3, () -> false);
      } catch (ArithmeticException e) {
        continue;
      }
      List<ColumnBatch> actual = pipeline.finish(split(pipeline, batches, random), 3, () -> false);
      assertEquals(expected.stream().map(ColumnBatch::rows).toList(), actual.stream().map(ColumnBatch::rows).toList(),
          where);
      assertEquals(rows(expected), rows(actual), where);
    }
  }

  @Test void groupsOfTwoPartsMergeIntoTheGroupsOfOneRun() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    for (int trial = 0; trial < 16; trial++) {
      List<SourceBatch> batches = batches(gen, random);
      int[] keys = KEY_CHOICES[random.nextInt(KEY_CHOICES.length)];
      List<Expr> exprs = List.of(gen.int64(1), gen.decimal(2), new Expr.Column(6, ExprType.STRING),
          new Expr.Column(4, ExprType.DATE), new Expr.Column(0, ExprType.INT32));
      List<AggCall> calls = List.of(new AggCall(AggCall.Kind.SUM, 1, DEC2),
          new AggCall(AggCall.Kind.SUM0, 0, ExprType.INT64), new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
          new AggCall(AggCall.Kind.COUNT, 1, ExprType.INT64), new AggCall(AggCall.Kind.MIN, 3, ExprType.DATE),
          new AggCall(AggCall.Kind.MAX, 1, DEC2), new AggCall(AggCall.Kind.MIN, 2, ExprType.STRING));
      int count = keys.length + 2;  // COUNT(*) after the keys, SUM0 and SUM
      List<PipelineStage> stages = List.of(new PipelineStage.Filter(gen.bool(2)), new PipelineStage.Project(exprs),
          new PipelineStage.Aggregate(keys, calls),
          new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(count, ExprType.INT64),
              new Expr.Literal(1L, ExprType.INT64))));
      ColumnarPipeline pipeline = new ColumnarPipeline(RandomExprs.SCHEMA, stages);
      String where = "seed " + seed + ", trial " + trial + ", " + stages;
      List<ColumnBatch> expected;
      try {
        expected = pipeline.run(batches, 3, () -> false);
      } catch (ArithmeticException e) {
        continue;
      }
      assertNull(pipeline.partialsUnsupportedReason(), where);
      assertEquals(sorted(rows(expected)), sorted(rows(pipeline.finish(split(pipeline, batches, random), 3,
          () -> false))), where);
    }
  }

  @Test void aWideSumHasNoMerge() {
    List<PipelineStage> stages = List.of(new PipelineStage.Aggregate(new int[0],
        List.of(AggCall.wideSum(AggCall.Kind.SUM, 0))));
    ColumnarPipeline pipeline = new ColumnarPipeline(List.of(ExprType.INT64), stages);
    assertNotNull(pipeline.partialsUnsupportedReason());
    assertThrows(IllegalArgumentException.class, () -> pipeline.finish(List.of(
        new ColumnarPipeline.Partial(null, new ColumnVector[0]), new ColumnarPipeline.Partial(null, new ColumnVector[0])),
        1, () -> false));
  }

  /** The pipeline over {@code batches} in two parts: the front claimed by one run, the back by another at once. */
  private static List<ColumnarPipeline.Partial> split(ColumnarPipeline pipeline, List<SourceBatch> batches,
      Random random) {
    ScanClaims claims = new ScanClaims(batches.size());
    int front = random.nextInt(batches.size() + 1);
    if (!claims.claimFront(front)) {
      throw new AssertionError("nothing was claimed yet");
    }
    ColumnarPipeline.Partial back = pipeline.runClaimed(batches, claims::claimBack, 2, () -> false);
    for (int b = claims.gpuBatches(); b < batches.size() - claims.cpuBatches(); b++) {
      assertEquals(0, batches.get(b).rows(), "batch " + b + " claimed by neither side");  // an empty one has no morsel
    }
    ColumnarPipeline.Partial first = pipeline.runClaimed(batches.subList(0, front), b -> true, 2, () -> false);
    return List.of(first, back);
  }

  private List<SourceBatch> batches(RandomExprs gen, Random random) {
    List<SourceBatch> batches = new ArrayList<>();
    int[] sizes = {0, 1, 77, 1000, 70_000};
    for (int b = 1 + random.nextInt(6); b > 0; b--) {
      batches.add(data.batch(gen, sizes[random.nextInt(sizes.length)], random.nextBoolean()));
    }
    return batches;
  }

  private static List<List<Object>> rows(List<ColumnBatch> batches) {
    List<List<Object>> out = new ArrayList<>();
    for (ColumnBatch batch : batches) {
      for (int r = 0; r < batch.rows(); r++) {
        out.add(Arrays.asList(RowReference.row(Arrays.asList(batch.columns()), r)));
      }
    }
    return out;
  }

  private static List<String> sorted(List<List<Object>> rows) {
    return rows.stream().map(Object::toString).sorted().toList();
  }
}
