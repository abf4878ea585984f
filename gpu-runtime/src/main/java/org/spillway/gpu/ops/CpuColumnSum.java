package org.spillway.gpu.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * The CPU backend of ColumnSum: morsels of rows summed in parallel on a fork-join pool, then combined
 * in morsel order (so FLOAT64 sums are deterministic for a given thread count and morsel size).
 */
public final class CpuColumnSum implements ColumnSum, AutoCloseable {
  /** 1 Mi rows: large enough to amortize task overhead, small enough to balance 16 cores. */
  public static final long MORSEL_ROWS = 1L << 20;

  private final ForkJoinPool pool;
  private final int threads;

  public CpuColumnSum(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
    this.threads = threads;
    this.pool = new ForkJoinPool(threads);
  }

  /** One thread per available core. */
  public CpuColumnSum() {
    this(Runtime.getRuntime().availableProcessors());
  }

  @Override
  public String describe() {
    return "cpu (" + threads + " threads)";
  }

  @Override
  public SumResult sum(HostColumn column) {
    long morsels = (column.rowCount() + MORSEL_ROWS - 1) / MORSEL_ROWS;
    List<Future<long[]>> parts = new ArrayList<>();
    for (long m = 0; m < morsels; m++) {
      long first = m * MORSEL_ROWS;
      long rows = Math.min(MORSEL_ROWS, column.rowCount() - first);
      parts.add(pool.submit(() -> sumMorsel(column, first, rows)));
    }
    long integer = 0;
    double floating = 0;
    try {
      for (Future<long[]> f : parts) {
        long[] r = f.get();
        integer += r[0];
        floating += Double.longBitsToDouble(r[1]);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("CPU sum of " + column.name() + " interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("CPU sum of " + column.name() + " failed: " + e.getCause(), e.getCause());
    }
    return new SumResult(column.type(), column.rowCount(), integer, floating);
  }

  /** {integer sum, double bits of the float sum} of one morsel. */
  private static long[] sumMorsel(HostColumn column, long first, long rows) {
    long address = column.addressOf(first);
    ColumnType type = column.type();
    if (type == ColumnType.FLOAT64) {
      double s = 0;
      for (long i = 0; i < rows; i++) {
        s += Double.longBitsToDouble(MemoryUtil.getLong(address + (i << 3)));
      }
      return new long[] {0, Double.doubleToRawLongBits(s)};
    }
    long s = 0;
    if (type == ColumnType.INT64) {
      for (long i = 0; i < rows; i++) {
        s += MemoryUtil.getLong(address + (i << 3));
      }
    } else {
      for (long i = 0; i < rows; i++) {
        s += MemoryUtil.getInt(address + (i << 2));
      }
    }
    return new long[] {s, 0};
  }

  @Override
  public void close() {
    pool.shutdown();
  }
}
