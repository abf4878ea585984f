package org.spillway.gpu.calibrate;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.spillway.gpu.bench.BenchReport;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.DeviceAllocator;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostMemoryKind;

/**
 * What a random line read over the link costs as a function of the pinned region the reads spread over: the GPU's
 * translations of host memory are cached for a bounded reach, so past it a read may wait on a translation too (issue
 * #15: per lookup, the GPU index join at 64 GiB of R costs twice what it does at 32 GiB). {@code Calibrator
 * --tlb-probe SIZE} measures one region beyond the reach; this probe measures, with {@link LinkProbe}'s random
 * {@value MachineProfile#INDEX_LINE_BYTES}-byte reads:
 *
 * <ul>
 *   <li>{@code random}: reads over a region at once, for every region of {@code --regions} (prefixes of one pinned
 *       allocation of the largest);
 *   <li>{@code slices}: the largest region in slices of each size of {@code --slices}, a launch per slice one after
 *       another, timed together: the windowed index join's lookups in translation slices ({@code TranslationSlices});
 *   <li>{@code sweep}: the largest region in one launch whose reads move through it window by window, each window
 *       of a size of {@code --footprints}: how one launch over a partitioned window's lookups walks the column (a
 *       grid's round of lookups falls into a few partitions).
 * </ul>
 *
 * <p>Every measurement reads {@code --reads-per-page} lines per 4 KiB page of the bytes it covers (default 4: a
 * 512 MiB window of probe keys at 1% of R's keys has about 4 lookups per page of R, whatever R's size), the median
 * of {@code --reps} runs after a warm-up.
 *
 * <p>{@code TranslationReachProbe [--regions 1g,4g,16g,32g,64g] [--slices 1g,4g,16g|none] [--footprints
 * 256m,1g|none] [--reads-per-page N] [--reps N] [--out FILE.csv]}: sizes are powers of two, slices and footprints
 * smaller than the largest region.
 */
public final class TranslationReachProbe {
  private static final String USAGE = "TranslationReachProbe [--regions 1g,4g,16g,32g,64g] [--slices 1g,4g,16g|none]"
      + " [--footprints 256m,1g|none] [--reads-per-page N] [--reps N] [--out FILE.csv]";
  private static final int LINE = MachineProfile.INDEX_LINE_BYTES;
  private static final long PAGE = 4096;

  private TranslationReachProbe() {}

  /** The parsed command line. */
  record Options(List<Long> regions, List<Long> slices, List<Long> footprints, double readsPerPage, int reps,
      Path out) {
    static Options parse(String[] args) {
      List<Long> regions = sizes("--regions", "1g,4g,16g,32g,64g");
      List<Long> slices = sizes("--slices", "1g,4g,16g");
      List<Long> footprints = sizes("--footprints", "256m,1g");
      double readsPerPage = 4;
      int reps = 5;
      Path out = null;
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--regions" -> regions = sizes("--regions", value(args, ++i));
          case "--slices" -> slices = sizes("--slices", value(args, ++i));
          case "--footprints" -> footprints = sizes("--footprints", value(args, ++i));
          case "--reads-per-page" -> readsPerPage = Double.parseDouble(value(args, ++i));
          case "--reps" -> reps = Integer.parseInt(value(args, ++i));
          case "--out" -> out = Path.of(value(args, ++i));
          default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; usage: " + USAGE);
        }
      }
      long largest = regions.stream().mapToLong(r -> r).max().orElse(0);
      boolean shapes = regions.stream().allMatch(TranslationReachProbe::powerOfTwoLines)
          && slices.stream().allMatch(s -> powerOfTwoLines(s) && s < largest)
          && footprints.stream().allMatch(f -> powerOfTwoLines(f) && f < largest);
      if (regions.isEmpty() || !shapes || !(readsPerPage > 0) || reps < 1) {
        throw new IllegalArgumentException("regions (at least one), slices and footprints are powers of two of at"
            + " least " + LINE + " bytes, slices and footprints below the largest region, --reads-per-page"
            + " positive and --reps at least 1; got " + regions + ", " + slices + ", " + footprints + ", "
            + readsPerPage + ", " + reps + "; usage: " + USAGE);
      }
      return new Options(regions, slices, footprints, readsPerPage, reps, out);
    }

    private static List<Long> sizes(String what, String text) {
      if (text.equalsIgnoreCase("none")) {
        return List.of();
      }
      List<Long> values = new ArrayList<>();
      for (String size : text.split(",")) {
        values.add(DeviceAllocator.parseBytes(what, size));
      }
      return List.copyOf(values);
    }

    private static String value(String[] args, int i) {
      if (i >= args.length) {
        throw new IllegalArgumentException(args[i - 1] + " needs a value; usage: " + USAGE);
      }
      return args[i];
    }

    long largest() {
      return regions.stream().mapToLong(r -> r).max().orElseThrow();
    }

    /** The reads a measurement over {@code bytes} makes: {@link #readsPerPage} per 4 KiB page, at least one. */
    long reads(long bytes) {
      return Math.max(1, Math.round(bytes / (double) PAGE * readsPerPage));
    }
  }

  private static boolean powerOfTwoLines(long bytes) {
    return Long.bitCount(bytes) == 1 && bytes >= LINE;
  }

  /** Measures every region, slicing and sweep of {@code options} on {@code device}: a row each. */
  static BenchReport measure(CudaDevice device, Options options) {
    BenchReport report = new BenchReport("Random " + LINE + "-byte reads over the link by region", List.of(
        "pattern", "region GiB", "part GiB", "launches", "reads", "ms", "ns per read", "M reads/s", "GB/s of lines"));
    long largest = options.largest();
    long started = System.nanoTime();
    try (HostBuffer host = device.pinnedAllocator().allocate(largest);
         LinkProbe probe = new LinkProbe(device)) {
      System.out.printf(Locale.ROOT, "pinned %.2f GiB in %.1f s%n", largest / (double) (1L << 30),
          (System.nanoTime() - started) / 1e9);
      long mapped = HostMemoryKind.mappedDeviceAddress(device, host.address());
      int reps = options.reps();
      for (long region : options.regions()) {
        long reads = options.reads(region);
        row(report, "random", region, region, 1, reads, probe.readSeconds(mapped, region, LINE, true, reads, reps));
      }
      long reads = options.reads(largest);
      for (long slice : options.slices()) {  // the slices in address order, as the index join's partitions come
        int count = (int) (largest / slice);
        long perSlice = Math.max(1, reads / count);
        row(report, "slices", largest, slice, count, perSlice * count,
            probe.slicedReadSeconds(mapped, slice, count, LINE, perSlice, reps));
      }
      for (long footprint : options.footprints()) {
        row(report, "sweep", largest, footprint, 1, reads,
            probe.sweepReadSeconds(mapped, footprint, largest / footprint, LINE, reads, reps));
      }
    }
    return report;
  }

  private static void row(BenchReport report, String pattern, long region, long part, int launches, long reads,
      double seconds) {
    double gib = 1L << 30;
    double ns = seconds * 1e9 / reads;
    double gbs = reads * (double) LINE / seconds / 1e9;
    report.row(pattern, region / gib, part / gib, launches, reads, seconds * 1e3, ns, reads / seconds / 1e6, gbs);
    System.out.printf(Locale.ROOT, "  %-6s region %8.3f GiB, parts of %8.3f GiB, %4d launch(es), %11d reads: %8.3f"
        + " ns per read, %7.2f GB/s of lines%n", pattern, region / gib, part / gib, launches, reads, ns, gbs);
  }

  public static void main(String[] args) throws IOException {
    Options options = Options.parse(args);
    CudaDevice device = GpuRuntime.requireDevice();
    System.out.println("random " + LINE + "-byte reads over the link: regions " + options.regions() + ", slices "
        + options.slices() + " and sweep footprints " + options.footprints() + " of the largest, "
        + options.readsPerPage() + " reads per 4 KiB page, median of " + options.reps() + ", " + device);
    BenchReport report = measure(device, options);
    System.out.println(report.toTable());
    if (options.out() != null) {
      report.writeCsv(options.out());
    }
  }
}
