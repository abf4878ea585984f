package org.spillway.gpu.bench;

import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.pipeline.gpu.GpuColumnCache;
import org.spillway.gpu.pipeline.gpu.GpuColumnarPipeline;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The cases of {@link PipelineBenchmark} for pipelines without an aggregation: Q6's filter returning
 * l_extendedprice and l_discount of the selected rows (1.9%, 19% and 100% of them) by transfer method and
 * filter variant, the same with every column resident in the GPU column cache (only the rows come back), and
 * the CPU backend. Each row reports both directions of the link: GB/s of the columns streamed to the GPU and,
 * in the note, the bytes the kernels wrote back and their GB/s over the pass. Every GPU result is compared
 * with the CPU backend's, batch for batch and row for row, in order.
 */
final class PipelineRowsCases {
  private final CudaDevice device;
  private final int reps;
  private final BenchReport report;
  private final double link;
  private final int threads;

  PipelineRowsCases(CudaDevice device, int reps, BenchReport report, double link, int threads) {
    this.device = device;
    this.reps = reps;
    this.report = report;
    this.link = link;
    this.threads = threads;
  }

  void run(List<SourceBatch> batches) {
    long from = PipelineWorkloads.day(1994, 1, 1);
    List<PipelineStage> q6 = PipelineWorkloads.q6Rows();
    List<PipelineStage> threeYears = PipelineWorkloads.q6Rows(from, PipelineWorkloads.day(1997, 1, 1), 0, 5, 4000);
    List<PipelineStage> everything = PipelineWorkloads.q6Rows(0, 100_000, 0, 10, 100_000);
    List<FilterVariant> both = List.of(FilterVariant.BRANCHING, FilterVariant.PREDICATION);
    List<FilterVariant> branching = List.of(FilterVariant.BRANCHING);
    Object[][] cases = {
        {"Q6 rows", q6, List.of(TransferMethod.PINNED_COPY, TransferMethod.ZERO_COPY), both},
        {"Q6 rows three years", threeYears, List.of(TransferMethod.ZERO_COPY), both},
        {"Q6 rows three years", threeYears, List.of(TransferMethod.PINNED_COPY), branching},
        {"Q6 rows everything", everything, List.of(TransferMethod.PINNED_COPY, TransferMethod.ZERO_COPY), branching}};
    for (Object[] c : cases) {
      @SuppressWarnings("unchecked")
      List<PipelineStage> stages = (List<PipelineStage>) c[1];
      List<ColumnBatch> expected = cpu(stages).run(batches, threads, () -> false);
      double selected = 100.0 * rows(expected) / batches.stream().mapToLong(SourceBatch::rows).sum();
      @SuppressWarnings("unchecked")
      List<TransferMethod> methods = (List<TransferMethod>) c[2];
      @SuppressWarnings("unchecked")
      List<FilterVariant> variants = (List<FilterVariant>) c[3];
      for (TransferMethod method : methods) {
        for (FilterVariant variant : variants) {
          time((String) c[0], gpu(stages).withFilterVariant(variant), method, batches, expected, selected, "");
        }
      }
    }
    try (GpuColumnCache cache = new GpuColumnCache(device, 16L << 30)) {
      for (List<PipelineStage> stages : List.of(q6, everything)) {
        List<ColumnBatch> expected = cpu(stages).run(batches, threads, () -> false);
        double selected = 100.0 * rows(expected) / batches.stream().mapToLong(SourceBatch::rows).sum();
        GpuColumnarPipeline p = gpu(stages).withCache(cache);
        time(stages == q6 ? "Q6 rows cached" : "Q6 rows everything cached", p, TransferMethod.PINNED_COPY, batches,
            expected, selected, "all columns resident");
      }
    }
    for (List<PipelineStage> stages : List.of(q6, everything)) {
      double[] ms = new double[Math.max(3, reps / 2)];
      for (int r = -1; r < ms.length; r++) {
        long start = System.nanoTime();
        cpu(stages).run(batches, threads, () -> false);
        if (r >= 0) {
          ms[r] = (System.nanoTime() - start) / 1e6;
        }
      }
      report.row(stages == q6 ? "Q6 rows" : "Q6 rows everything", "", "", "CPU backend", Double.NaN, Double.NaN,
          Double.NaN, MethodTimer.median(ms), Double.NaN, Double.NaN, threads + " threads, same data");
    }
  }

  /** Warm-up, then {@code reps} timed runs; each result must equal the CPU backend's, in order. */
  private void time(String name, GpuColumnarPipeline p, TransferMethod method, List<SourceBatch> batches,
      List<ColumnBatch> expected, double selected, String note) {
    double[] pass = new double[reps];
    double[] wall = new double[reps];
    GpuColumnarPipeline.RunStats stats = null;
    for (int r = -1; r < reps; r++) {
      long start = System.nanoTime();
      List<ColumnBatch> actual = p.run(device, method, batches, threads, () -> false);
      long end = System.nanoTime();
      check(expected, actual, name + " " + method.label() + " " + p.filterVariant().label());
      stats = p.lastRun();
      if (r >= 0) {
        pass[r] = stats.nanos() / 1e6;
        wall[r] = (end - start) / 1e6;
      }
    }
    double passMs = MethodTimer.median(pass);
    double in = stats.bytes() / (passMs * 1e6);
    double back = stats.returnedBytes() / (passMs * 1e6);
    report.row(name, method.label(), p.filterVariant().label(), stats.kernel(), selected,
        (stats.bytes() + stats.cachedBytes()) / 1e9, passMs, MethodTimer.median(wall),
        stats.bytes() > 0 ? in : Double.NaN, stats.bytes() > 0 ? in / link : Double.NaN,
        (note.isEmpty() ? "" : note + "; ") + String.format("returned %.3f GB, %.1f GB/s back (%.2f of link)",
            stats.returnedBytes() / 1e9, back, back / link));
    System.out.printf("%s %s %s: pass %.2f ms, wall %.2f ms, in %.1f GB/s, back %.1f GB/s%n", name, method.label(),
        p.filterVariant().label(), passMs, MethodTimer.median(wall), in, back);
  }

  private static long rows(List<ColumnBatch> batches) {
    return batches.stream().mapToLong(ColumnBatch::rows).sum();
  }

  /** Batch for batch, row for row: the rows per batch, each column's type, values and NULLs. */
  private static void check(List<ColumnBatch> expected, List<ColumnBatch> actual, String what) {
    if (expected.size() != actual.size()) {
      throw new IllegalStateException(what + ": " + actual.size() + " result batches, the CPU backend returns "
          + expected.size());
    }
    for (int b = 0; b < expected.size(); b++) {
      ColumnBatch want = expected.get(b);
      ColumnBatch got = actual.get(b);
      if (want.rows() != got.rows() || want.columns().length != got.columns().length) {
        throw new IllegalStateException(what + ": batch " + b + " has " + got.rows() + " rows, the CPU's "
            + want.rows());
      }
      for (int c = 0; c < want.columns().length; c++) {
        ColumnVector x = want.columns()[c];
        ColumnVector y = got.columns()[c];
        for (int r = 0; r < want.rows(); r++) {
          if (!x.type.equals(y.type) || x.isNull(r) != y.isNull(r) || x.longs[r] != y.longs[r]) {
            throw new IllegalStateException(what + ": batch " + b + ", row " + r + ", column " + c + " differs from"
                + " the CPU backend's");
          }
        }
      }
    }
  }

  private static GpuColumnarPipeline gpu(List<PipelineStage> stages) {
    return new GpuColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, stages);
  }

  private static ColumnarPipeline cpu(List<PipelineStage> stages) {
    return new ColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, stages);
  }
}
