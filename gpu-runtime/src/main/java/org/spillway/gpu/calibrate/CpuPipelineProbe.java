package org.spillway.gpu.calibrate;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.spillway.gpu.bench.MethodTimer;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.SourceBatch;

/**
 * Measures the CPU backend's own rate on a TPC-H Q6-shaped pipeline (a three-way range filter, a product and a
 * sum over quantity, price, discount and ship date columns, 28 bytes a row) with all cores, in GB/s of input
 * columns: the rate the cost model charges the CPU backend, which interprets expressions per morsel and so runs
 * well below the raw scan bandwidth. Values follow TPC-H's distributions; the sum is checked.
 */
final class CpuPipelineProbe {
  private static final int BATCH_ROWS = 1 << 17;
  /**
   * Untimed runs first: the JIT compiles the evaluator's loops only after a few morsels per thread, and with one
   * warm-up the quick calibration (256 MiB, 8 ms a run) measured 7.3 GB/s on the H200 host where SF 10's Q6 ran
   * at 31 GB/s.
   */
  static final int WARMUP_RUNS = 5;
  private static final int BYTES_PER_ROW = 28;
  private static final int SHIP_FROM = 8036;   // 1992-01-02
  private static final int YEAR_1994 = 8766;   // 1994-01-01
  private static final long SEED = 6;

  private CpuPipelineProbe() {}

  /** Median GB/s of {@code reps} runs over about {@code bytes} of input (after {@link #WARMUP_RUNS} untimed ones). */
  static double gbPerSecond(long bytes, int reps, PrintStream progress) {
    ExprType money = ExprType.decimal(2);
    Expr filter = new Expr.Logical(true, List.of(
        new Expr.InRanges(new Expr.Column(3, ExprType.DATE), new long[] {YEAR_1994},
            new long[] {YEAR_1994 + 364}, null),
        new Expr.InRanges(new Expr.Column(2, money), new long[] {5}, new long[] {7}, null),
        new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(0, money), new Expr.Literal(2400L, money))));
    ColumnarPipeline pipeline = new ColumnarPipeline(List.of(money, money, money, ExprType.DATE), List.of(
        new PipelineStage.Filter(filter),
        new PipelineStage.Project(List.of(new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Column(1, money),
            new Expr.Column(2, money), ExprType.decimal(4)))),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 0, ExprType.decimal(4))))));
    int threads = Runtime.getRuntime().availableProcessors();
    long rows = Math.max(BATCH_ROWS, bytes / BYTES_PER_ROW / BATCH_ROWS * BATCH_ROWS);
    List<SourceBatch> batches = new ArrayList<>();
    try (BufferAllocator allocator = ArrowAllocators.root(HostMemoryKind.PAGEABLE)) {
      try {
        for (long start = 0; start < rows; start += BATCH_ROWS) {
          List<FieldVector> columns = List.of(new BigIntVector("quantity", allocator),
              new BigIntVector("price", allocator), new BigIntVector("discount", allocator),
              new DateDayVector("shipdate", allocator));
          columns.forEach(v -> v.setInitialCapacity(BATCH_ROWS));
          columns.forEach(FieldVector::allocateNew);
          batches.add(new SourceBatch(columns, BATCH_ROWS));
        }
        // Filled on all cores: one thread would take longer than the timed runs (on first use, a query waits).
        long expected = IntStream.range(0, batches.size()).parallel()
            .mapToLong(b -> fill(batches.get(b), new SplittableRandom(SEED * 0x9E3779B97F4A7C15L + b))).sum();
        double[] gbs = new double[reps];
        for (int r = -WARMUP_RUNS; r < reps; r++) {
          long t0 = System.nanoTime();
          long sum = pipeline.run(batches, threads, () -> false).get(0).columns()[0].longs[0];
          long nanos = System.nanoTime() - t0;
          if (sum != expected) {
            throw new IllegalStateException("CPU pipeline probe: sum " + sum + " != " + expected);
          }
          if (r >= 0) {
            gbs[r] = rows * BYTES_PER_ROW / (double) nanos;
          }
        }
        double median = MethodTimer.median(gbs);
        progress.printf("  CPU pipeline, Q6 shape (%d threads): %7.2f GB/s%n", threads, median);
        return median;
      } finally {
        batches.forEach(b -> b.columns().forEach(FieldVector::close));
      }
    }
  }

  /** Fills one batch with TPC-H-distributed values; returns the sum the pipeline must compute over it. */
  private static long fill(SourceBatch batch, SplittableRandom random) {
    List<FieldVector> columns = batch.columns();
    long expected = 0;
    for (int r = 0; r < BATCH_ROWS; r++) {
      long quantity = 100L * random.nextInt(1, 51);
      long price = random.nextLong(90_000, 10_500_000);
      long discount = random.nextInt(0, 11);
      int ship = SHIP_FROM + random.nextInt(0, 2526);
      ((BigIntVector) columns.get(0)).set(r, quantity);
      ((BigIntVector) columns.get(1)).set(r, price);
      ((BigIntVector) columns.get(2)).set(r, discount);
      ((DateDayVector) columns.get(3)).set(r, ship);
      boolean kept = ship >= YEAR_1994 && ship <= YEAR_1994 + 364 && discount >= 5 && discount <= 7
          && quantity < 2400;
      expected += kept ? price * discount : 0;
    }
    columns.forEach(v -> v.setValueCount(BATCH_ROWS));
    return expected;
  }
}
