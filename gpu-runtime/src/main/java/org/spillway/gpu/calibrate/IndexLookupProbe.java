package org.spillway.gpu.calibrate;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.spillway.gpu.bench.MethodTimer;
import org.spillway.gpu.bench.RandomFill;
import org.spillway.gpu.bench.SortedKeys;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.index.SortedKeyColumn;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import org.spillway.gpu.transfer.ColumnType;

/**
 * Measures what the windowed index join's cost reads ({@link MachineProfile.IndexLookupRates}): CPU lookups per
 * second per core of a binary search and a RadixSpline over sorted keys beyond the last-level cache, on all cores;
 * and with a GPU, random {@value MachineProfile#INDEX_LINE_BYTES}-byte reads over the link from pinned memory within
 * and beyond the GPU's TLB reach. Index lookups land on lines all over the index, as these reads do; what a lookup
 * reads in all is the cost model's business (lines per lookup by index kind).
 */
final class IndexLookupProbe {
  /** Keys a worker looks up per task: a vector, as the index join hands them over. */
  static final int VECTOR = 4096;
  /**
   * Lookups per timed run at most, and per key of the region at most one in {@link #KEYS_PER_LOOKUP}: enough for a
   * steady rate, few enough that a calibration on first use stays quick.
   */
  static final int MAX_LOOKUPS = 1 << 23;
  static final int KEYS_PER_LOOKUP = 8;
  /**
   * Random line reads per timed link run: four per line of the region, within 2^20 (past the kernel's start-up) and
   * 2^24 (2 GiB of lines).
   */
  static final long MIN_LINK_ACCESSES = 1L << 20;
  static final long MAX_LINK_ACCESSES = 1L << 24;

  private IndexLookupProbe() {}

  /** The CPU lookup rates over {@code regionBytes} of keys; {@code link} the GPU's rates (nulls without one). */
  static MachineProfile.IndexLookupRates measure(long regionBytes, int reps, LinkRates link, PrintStream progress) {
    long rows = regionBytes / Long.BYTES;
    int threads = MorselScheduler.THREADS;
    try (BufferAllocator allocator = ArrowAllocators.root(HostMemoryKind.PAGEABLE);
         ArrowBuf keys = allocator.buffer(rows * Long.BYTES)) {
      SortedKeys.fill(keys.memoryAddress(), rows);
      SortedKeyColumn column = SortedKeyColumn.ofLongs(keys.memoryAddress(), rows);
      long[] probes = SortedKeys.probes(rows, (int) Math.min(MAX_LOOKUPS, Math.max(VECTOR, rows / KEYS_PER_LOOKUP)),
          0, 31);
      double binary = perCore(IndexKind.BINARY_SEARCH, column, allocator, probes, reps, threads, progress);
      double radixSpline = perCore(IndexKind.RADIXSPLINE, column, allocator, probes, reps, threads, progress);
      return new MachineProfile.IndexLookupRates(link.small(), link.smallBytes(), link.large(), link.largeBytes(),
          binary, radixSpline, rows * Long.BYTES);
    }
  }

  /** Lookups per second per core through an index of {@code kind}: the median of {@code reps} runs after one. */
  private static double perCore(IndexKind kind, SortedKeyColumn column, BufferAllocator allocator, long[] probes,
      int reps, int threads, PrintStream progress) {
    try (SortedKeyIndex index = kind.build(column, allocator, threads)) {
      int tasks = (probes.length + VECTOR - 1) / VECTOR;
      int workers = MorselScheduler.workers(tasks, threads);
      double[] rates = new double[reps];
      for (int r = -1; r < reps; r++) {
        AtomicLong found = new AtomicLong();
        long t0 = System.nanoTime();
        MorselScheduler.forEach(tasks, threads, () -> false, (worker, task) -> {
          int from = task * VECTOR;
          int count = Math.min(VECTOR, probes.length - from);
          long[] vector = Arrays.copyOfRange(probes, from, from + count);
          long[] rows = new long[count];
          index.lookup(vector, count, rows);
          long sum = 0;
          for (int i = 0; i < count; i++) {
            sum += rows[i] == SortedKeys.rowOf(vector[i], column.rows()) ? 1 : 0;
          }
          found.addAndGet(sum);
        });
        long nanos = System.nanoTime() - t0;
        if (found.get() != probes.length) {
          throw new IllegalStateException("index lookup probe: " + kind + " found " + found.get() + " of "
              + probes.length + " keys at their rows");
        }
        if (r >= 0) {
          rates[r] = probes.length * 1e9 / nanos / workers;
        }
      }
      double median = MethodTimer.median(rates);
      progress.printf("  CPU index lookups %-13s over %d MiB: %7.2f M/s per core (%d threads)%n", kind,
          column.rows() * Long.BYTES >> 20, median / 1e6, workers);
      return median;
    }
  }

  /** The GPU's random line reads over the link (GB/s of lines) within and beyond its TLB reach; null: not measured. */
  record LinkRates(Double small, Long smallBytes, Double large, Long largeBytes) {
    static final LinkRates NONE = new LinkRates(null, null, null, null);
  }

  /**
   * Random line reads over {@code smallBytes} of pinned memory and, where {@code largeBytes} is positive, over that
   * many (beyond the TLB's reach): the median of {@code reps} runs.
   */
  static LinkRates link(CudaDevice device, LinkProbe probe, long smallBytes, long largeBytes, int reps,
      PrintStream progress) {
    double small = lineGbPerSecond(device, probe, smallBytes, reps, progress);
    Double large = largeBytes > 0 ? lineGbPerSecond(device, probe, largeBytes, reps, progress) : null;
    return new LinkRates(small, smallBytes, large, largeBytes > 0 ? largeBytes : null);
  }

  private static double lineGbPerSecond(CudaDevice device, LinkProbe probe, long bytes, int reps,
      PrintStream progress) {
    int line = MachineProfile.INDEX_LINE_BYTES;
    try (HostBuffer host = device.pinnedAllocator().allocate(bytes)) {
      RandomFill.fill(host.address(), ColumnType.INT64, bytes / Long.BYTES, 41);
      long mapped = HostMemoryKind.mappedDeviceAddress(device, host.address());
      long accesses = Math.min(MAX_LINK_ACCESSES, Math.max(MIN_LINK_ACCESSES, bytes / line * 4));
      double seconds = probe.readSeconds(mapped, bytes, line, true, accesses, reps);
      double gbs = accesses * line / seconds / 1e9;
      progress.printf("  index line reads (random %d B) over %d MiB pinned: %7.2f GB/s%n", line, bytes >> 20, gbs);
      return gbs;
    }
  }
}
