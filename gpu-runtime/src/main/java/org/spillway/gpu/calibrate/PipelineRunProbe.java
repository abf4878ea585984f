package org.spillway.gpu.calibrate;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.spillway.gpu.bench.MethodTimer;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * Measures the fixed cost of one GPU pipeline run (program upload, buffers, streams, launch, synchronisation,
 * result) as the wall time of a SUM over one small pinned batch, whose transfer takes microseconds; and the host's
 * cost per row that a pipeline without an aggregation returns (read back from pinned memory and assembled into
 * the CPU backend's result batches) as the difference between returning every row and none of the same input.
 */
final class PipelineRunProbe {
  private static final int ROWS = 4096;
  /** Rows of the rows probe: enough that the per-row cost, not the run's fixed cost, decides the difference. */
  private static final int RETURNED_ROWS = 1 << 21;
  /** Rows of a stored table's batch (the TPC-H generator's and the importers'). */
  private static final int STORED_BATCH_ROWS = 1 << 17;

  private PipelineRunProbe() {}

  /** The median milliseconds of {@code reps} (at least 9) warm runs; each run's sum is checked. */
  static double runMillis(CudaDevice device, int reps, PrintStream progress) {
    GpuColumnarPipeline pipeline = new GpuColumnarPipeline(List.of(ExprType.INT64), List.of(
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 0, ExprType.INT64)))));
    try (BufferAllocator allocator = ArrowAllocators.root(HostMemoryKind.PINNED);
         BigIntVector values = new BigIntVector("probe", allocator)) {
      values.allocateNew(ROWS);
      long expected = 0;
      for (int r = 0; r < ROWS; r++) {
        long v = (r * 2_654_435_761L) % 1_000_003;
        values.set(r, v);
        expected += v;
      }
      values.setValueCount(ROWS);
      List<SourceBatch> batches = List.of(new SourceBatch(List.of(values), ROWS));
      double[] millis = new double[Math.max(9, reps)];
      for (int r = -3; r < millis.length; r++) {
        long start = System.nanoTime();
        List<ColumnBatch> out = pipeline.run(device, TransferMethod.PINNED_COPY, batches, 1, () -> false);
        long nanos = System.nanoTime() - start;
        long sum = out.get(0).columns()[0].longs[0];
        if (sum != expected) {
          throw new IllegalStateException("pipeline run probe: GPU sum " + sum + " != " + expected);
        }
        if (r >= 0) {
          millis[r] = nanos / 1e6;
        }
      }
      double median = MethodTimer.median(millis);
      progress.printf("  GPU pipeline run (fixed cost): %7.3f ms%n", median);
      return median;
    }
  }

  /**
   * The median host nanoseconds per returned row of {@code reps} (at least 5) warm runs: a pipeline that returns
   * two 8-byte columns of every row, less one that returns none of the same batches, over the rows. The rows lie in
   * batches of a stored table's size, as a query's do: the host assembles the batches of a chunk in parallel, the
   * rows of one batch in order, so one batch of them all measured a single thread's rate, several times what TPC-H's
   * passes paid per row.
   */
  static double rowsNanosPerRow(CudaDevice device, int reps, PrintStream progress) {
    List<ExprType> types = List.of(ExprType.INT64, ExprType.INT64);
    List<BigIntVector> vectors = new ArrayList<>();
    try (BufferAllocator allocator = ArrowAllocators.root(HostMemoryKind.PINNED)) {
      try {
        List<SourceBatch> batches = new ArrayList<>();
        for (int start = 0; start < RETURNED_ROWS; start += STORED_BATCH_ROWS) {
          BigIntVector a = new BigIntVector("a", allocator);
          vectors.add(a);
          BigIntVector b = new BigIntVector("b", allocator);
          vectors.add(b);
          a.allocateNew(STORED_BATCH_ROWS);
          b.allocateNew(STORED_BATCH_ROWS);
          for (int i = 0; i < STORED_BATCH_ROWS; i++) {
            long r = start + i;
            a.set(i, r);
            b.set(i, (r * 2_654_435_761L) % 1_000_003);
          }
          a.setValueCount(STORED_BATCH_ROWS);
          b.setValueCount(STORED_BATCH_ROWS);
          batches.add(new SourceBatch(List.of(a, b), STORED_BATCH_ROWS));
        }
        double every = rowsMillis(device, types, batches, -1, RETURNED_ROWS, reps);
        double none = rowsMillis(device, types, batches, Long.MAX_VALUE, 0, reps);
        double nanos = Math.max(0, every - none) * 1e6 / RETURNED_ROWS;
        progress.printf("  GPU pipeline rows returned to the host: %7.1f ns per row%n", nanos);
        return nanos;
      } finally {
        vectors.forEach(BigIntVector::close);
      }
    }
  }

  /** Median wall milliseconds of a pipeline keeping the rows whose first column exceeds {@code above}. */
  private static double rowsMillis(CudaDevice device, List<ExprType> types, List<SourceBatch> batches, long above,
      long expectedRows, int reps) {
    Expr keep = new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(above, ExprType.INT64));
    GpuColumnarPipeline pipeline = new GpuColumnarPipeline(types, List.of(new PipelineStage.Filter(keep)));
    double[] millis = new double[Math.max(5, reps)];
    for (int r = -2; r < millis.length; r++) {
      long start = System.nanoTime();
      List<ColumnBatch> out = pipeline.run(device, TransferMethod.PINNED_COPY, batches, 1, () -> false);
      long nanos = System.nanoTime() - start;
      long rows = out.stream().mapToLong(ColumnBatch::rows).sum();
      if (rows != expectedRows) {
        throw new IllegalStateException("pipeline rows probe: GPU returned " + rows + " rows, not " + expectedRows);
      }
      if (r >= 0) {
        millis[r] = nanos / 1e6;
      }
    }
    return MethodTimer.median(millis);
  }
}
