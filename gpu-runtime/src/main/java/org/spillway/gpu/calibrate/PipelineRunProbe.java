package org.spillway.gpu.calibrate;

import java.io.PrintStream;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.spillway.gpu.bench.MethodTimer;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * Measures the fixed cost of one GPU pipeline run (program upload, buffers, streams, launch, synchronisation,
 * result) as the wall time of a SUM over one small pinned batch, whose transfer takes microseconds.
 */
final class PipelineRunProbe {
  private static final int ROWS = 4096;

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
}
