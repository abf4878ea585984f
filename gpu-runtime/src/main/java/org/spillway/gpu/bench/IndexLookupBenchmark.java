package org.spillway.gpu.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.index.SortedKeyColumn;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * CPU lookups of the four indexes of the windowed index join (issue #15): per key shape and column size
 * ({@code 2^k} sorted unique 8-byte keys off-heap), per index kind, the build on all threads (time and bytes of
 * the structure) and the lookups of uniformly drawn probe keys, a fraction of them hits, on one thread and on all,
 * a vector of probe keys per call as the index join will hand them over (interleaved lookups), or, with
 * {@code --calls single}, one call per key. Dense keys are the paper's data set; in
 * the sparse shape every key has a random place in its own stretch of 1024 values. Every kind's answers are
 * checked against binary search's (count of hits and sum of rows). One warm-up run, then the median of the runs.
 *
 * <p>Usage: {@code IndexLookupBenchmark [--out DIR] [--sizes 20,23,26] [--lookups N] [--threads N] [--runs N]
 * [--hits FRACTION] [--shapes dense,sparse] [--kinds BINARY_SEARCH,BTREE,HARMONIA,RADIXSPLINE]
 * [--calls vector,single]}; writes
 * {@code index-lookup.csv} into DIR.
 */
public final class IndexLookupBenchmark {
  /** Probe keys per lookup call: a morsel's worth of vectors. */
  private static final int VECTOR = 1 << 14;
  /** Values per key in the sparse shape. */
  private static final long STRIDE = 1024;

  private final List<Integer> sizes;
  private final int lookups;
  private final int threads;
  private final int runs;
  private final double hits;
  private final List<String> shapes;
  private final List<IndexKind> kinds;
  private final List<String> calls;
  private final BenchReport report;

  private IndexLookupBenchmark(List<Integer> sizes, int lookups, int threads, int runs, double hits,
      List<String> shapes, List<IndexKind> kinds, List<String> calls) {
    this.sizes = sizes;
    this.lookups = lookups;
    this.threads = threads;
    this.runs = runs;
    this.hits = hits;
    this.shapes = shapes;
    this.kinds = kinds;
    this.calls = calls;
    this.report = new BenchReport("Index lookups on the CPU, " + lookups + " probe keys, " + Math.round(hits * 100)
        + "% hits (median of " + runs + ")", List.of("keys", "index", "rows", "column MiB", "index KiB",
        "index % of column", "build ms", "call", "threads", "lookup ms", "M lookups/s", "hits"));
  }

  /** One column's probe keys in vectors, the rows they found, and binary search's answer to check against. */
  private record Probes(long[][] keys, long[][] rows) {
    long hits() {
      return Arrays.stream(rows).flatMapToLong(Arrays::stream).filter(r -> r >= 0).count();
    }

    long rowSum() {
      return Arrays.stream(rows).flatMapToLong(Arrays::stream).filter(r -> r >= 0).sum();
    }
  }

  private void run(Path out) throws IOException {
    try (BufferAllocator allocator = new RootAllocator()) {
      for (String shape : shapes) {
        for (int log : sizes) {
          long rows = 1L << log;
          try (ArrowBuf buf = allocator.buffer(rows * Long.BYTES)) {
            SortedKeyColumn column = fill(buf, rows, shape.equals("dense"));
            measure(allocator, shape, column);
          }
        }
      }
    }
    System.out.println(report.toTable());
    Files.createDirectories(out);
    report.writeCsv(out.resolve("index-lookup.csv"));
  }

  /** Dense keys {@code 0 .. rows-1}, or sparse even keys, one in each stretch of {@link #STRIDE} values. */
  private SortedKeyColumn fill(ArrowBuf buf, long rows, boolean dense) {
    long address = buf.memoryAddress();
    int chunks = (int) ((rows + VECTOR - 1) / VECTOR);
    MorselScheduler.forEach(chunks, threads, () -> false, (worker, chunk) -> {
      SplittableRandom random = new SplittableRandom(chunk * 0x9E3779B97F4A7C15L);
      for (long i = (long) chunk * VECTOR; i < Math.min(rows, (chunk + 1L) * VECTOR); i++) {
        MemoryUtil.putLong(address + i * Long.BYTES, dense ? i : i * STRIDE + 2 * random.nextLong(STRIDE / 2));
      }
    });
    return SortedKeyColumn.ofLongs(address, rows);
  }

  /** Uniform probe keys: a hit is a key of a random row; a miss lies above the keys (dense) or between them. */
  private Probes probes(SortedKeyColumn column, boolean dense) {
    SplittableRandom random = new SplittableRandom(42);
    int vectors = (lookups + VECTOR - 1) / VECTOR;
    long[][] keys = new long[vectors][];
    long[][] rows = new long[vectors][];
    for (int v = 0; v < vectors; v++) {
      keys[v] = new long[Math.min(VECTOR, lookups - v * VECTOR)];
      rows[v] = new long[keys[v].length];
      for (int i = 0; i < keys[v].length; i++) {
        long row = random.nextLong(column.rows());
        boolean hit = random.nextDouble() < hits;
        keys[v][i] = hit ? column.key(row) : dense ? column.rows() + row : column.key(row) + 1;
      }
    }
    return new Probes(keys, rows);
  }

  private void measure(BufferAllocator allocator, String shape, SortedKeyColumn column) {
    Probes probes = probes(column, shape.equals("dense"));
    long expectedHits = -1;
    long expectedSum = -1;
    for (IndexKind kind : kinds) {
      try (SortedKeyIndex index = kind.build(column, allocator, threads)) {
        for (String call : calls) {
          for (int lookupThreads : threads == 1 ? new int[] {1} : new int[] {1, threads}) {
            double[] millis = new double[runs];
            for (int run = -1; run < runs; run++) {
              long start = System.nanoTime();
              MorselScheduler.forEach(probes.keys().length, lookupThreads, () -> false,
                  (worker, v) -> lookup(index, call, probes.keys()[v], probes.rows()[v]));
              if (run >= 0) {
                millis[run] = (System.nanoTime() - start) / 1e6;
              }
            }
            long found = probes.hits();
            long sum = probes.rowSum();
            if (expectedHits < 0) {
              expectedHits = found;
              expectedSum = sum;
            } else if (found != expectedHits || sum != expectedSum) {
              throw new IllegalStateException(kind + " (" + call + ") found " + found + " keys (row sum " + sum
                  + "), the first kind " + expectedHits + " (row sum " + expectedSum + ") on " + shape + " keys, "
                  + column.rows() + " rows");
            }
            Arrays.sort(millis);
            double median = millis[runs / 2];
            report.row(shape, kind.name(), column.rows(), column.rows() * column.width() / 1048576.0,
                index.sizeBytes() / 1024.0, 100.0 * index.sizeBytes() / (column.rows() * column.width()),
                index.buildNanos() / 1e6, call, lookupThreads, median, lookups / median / 1e3, found);
            System.out.printf("%-6s %-13s 2^%d rows, %-6s %d threads: build %.1f ms, %.1f KiB, %.2f M lookups/s%n",
                shape, kind, 63 - Long.numberOfLeadingZeros(column.rows()), call, lookupThreads,
                index.buildNanos() / 1e6, index.sizeBytes() / 1024.0, lookups / median / 1e3);
          }
        }
      }
    }
  }

  /** A vector of keys in one call (interleaved lookups), or one call per key. */
  private static void lookup(SortedKeyIndex index, String call, long[] keys, long[] rows) {
    if (call.equals("vector")) {
      index.lookup(keys, keys.length, rows);
    } else {
      for (int i = 0; i < keys.length; i++) {
        rows[i] = index.lookup(keys[i]);
      }
    }
  }

  public static void main(String[] args) throws IOException {
    Path out = Path.of("docs/bench/index");
    List<Integer> sizes = List.of(20, 23, 26);
    int lookups = 1 << 22;
    int threads = MorselScheduler.THREADS;
    int runs = 5;
    double hits = 1.0;
    List<String> shapes = List.of("dense", "sparse");
    List<IndexKind> kinds = List.of(IndexKind.values());
    List<String> calls = List.of("vector");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
        case "--lookups" -> lookups = Integer.parseInt(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--hits" -> hits = Double.parseDouble(args[++i]);
        case "--shapes" -> shapes = List.of(args[++i].split(","));
        case "--kinds" -> kinds = Arrays.stream(args[++i].split(",")).map(IndexKind::valueOf).toList();
        case "--calls" -> calls = List.of(args[++i].split(","));
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; usage: "
            + "IndexLookupBenchmark [--out DIR] [--sizes 20,23,26] [--lookups N] [--threads N] [--runs N] "
            + "[--hits FRACTION] [--shapes dense,sparse] [--kinds BINARY_SEARCH,BTREE,HARMONIA,RADIXSPLINE] "
            + "[--calls vector,single]");
      }
    }
    List<String> unknown = new ArrayList<>(shapes);
    unknown.removeAll(List.of("dense", "sparse"));
    List<String> unknownCalls = new ArrayList<>(calls);
    unknownCalls.removeAll(List.of("vector", "single"));
    if (sizes.stream().anyMatch(s -> s < 0 || s > 34) || lookups < 1 || threads < 1 || runs < 1 || !(hits >= 0)
        || hits > 1 || !unknown.isEmpty() || !unknownCalls.isEmpty()) {
      throw new IllegalArgumentException("--sizes are 0..34 (log2 of the rows), --lookups, --threads and --runs at"
          + " least 1, --hits 0..1, --shapes dense or sparse and --calls vector or single; got " + sizes + ", "
          + lookups + ", " + threads + ", " + runs + ", " + hits + ", " + shapes + ", " + calls);
    }
    System.out.printf("Index lookups: sizes 2^%s rows, %d lookups, %d threads, %d runs, Java %s%n", sizes, lookups,
        threads, runs, Runtime.version());
    new IndexLookupBenchmark(sizes, lookups, threads, runs, hits, shapes, kinds, calls).run(out);
  }
}
