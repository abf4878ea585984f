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
 * translations of host memory are cached for a bounded reach, so past it each read may wait on a translation too
 * (issue #15: the GPU index join's lookups at 64 GiB of R cost twice those at 32 GiB). {@code Calibrator
 * --tlb-probe SIZE} measures one region beyond the reach; this probe sweeps the region's size, and, for the sliced
 * lookups of the windowed index join ({@code TranslationSlices}), reads the largest region in slices: launches one
 * after another, each over one slice of the region, the same number of reads in all, timed as one sweep (each slice
 * starts with the translations of the one before, as a sliced window's lookups do). One pinned allocation of the
 * largest region; every region is a prefix of it. The reads are {@link LinkProbe}'s random
 * {@value MachineProfile#INDEX_LINE_BYTES}-byte ones, the same count per measurement, each the median of
 * {@code --reps} runs after a warm-up.
 *
 * <p>{@code TranslationReachProbe [--regions 1g,4g,16g,32g,64g] [--slices 4g,16g|none] [--reads N] [--reps N]
 * [--out FILE.csv]}: regions and slices are powers of two (slices smaller than the largest region).
 */
public final class TranslationReachProbe {
  private static final String USAGE = "TranslationReachProbe [--regions 1g,4g,16g,32g,64g] [--slices 4g,16g|none]"
      + " [--reads N] [--reps N] [--out FILE.csv]";
  private static final int LINE = MachineProfile.INDEX_LINE_BYTES;

  private TranslationReachProbe() {}

  /** The parsed command line. */
  record Options(List<Long> regions, List<Long> slices, long reads, int reps, Path out) {
    static Options parse(String[] args) {
      List<Long> regions = bytes("--regions", "1g,4g,16g,32g,64g");
      List<Long> slices = bytes("--slices", "4g,16g");
      long reads = 1L << 24;
      int reps = 5;
      Path out = null;
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--regions" -> regions = bytes("--regions", value(args, ++i));
          case "--slices" -> slices = bytes("--slices", value(args, ++i));
          case "--reads" -> reads = Long.parseLong(value(args, ++i));
          case "--reps" -> reps = Integer.parseInt(value(args, ++i));
          case "--out" -> out = Path.of(value(args, ++i));
          default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; usage: " + USAGE);
        }
      }
      long largest = regions.stream().mapToLong(r -> r).max().orElse(0);
      boolean powers = regions.stream().allMatch(r -> Long.bitCount(r) == 1 && r >= LINE)
          && slices.stream().allMatch(s -> Long.bitCount(s) == 1 && s >= LINE && s < largest);
      if (regions.isEmpty() || !powers || reads < 1 || reps < 1) {
        throw new IllegalArgumentException("regions (at least one) and slices are powers of two of at least " + LINE
            + " bytes, slices below the largest region, --reads and --reps at least 1; got " + regions + ", " + slices
            + ", " + reads + ", " + reps + "; usage: " + USAGE);
      }
      return new Options(regions, slices, reads, reps, out);
    }

    private static List<Long> bytes(String what, String text) {
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
  }

  /** Measures every region and every slicing of the largest one on {@code device}; a row per measurement. */
  static BenchReport measure(CudaDevice device, Options options) {
    BenchReport report = new BenchReport("Random " + LINE + "-byte reads over the link by region", List.of(
        "region GiB", "slice GiB", "slices", "reads", "ms", "ns per read", "M reads/s", "GB/s of lines"));
    long largest = options.largest();
    long started = System.nanoTime();
    try (HostBuffer host = device.pinnedAllocator().allocate(largest);
         LinkProbe probe = new LinkProbe(device)) {
      System.out.printf(Locale.ROOT, "pinned %d GiB in %.1f s%n", largest >> 30, (System.nanoTime() - started) / 1e9);
      long mapped = HostMemoryKind.mappedDeviceAddress(device, host.address());
      for (long region : options.regions()) {
        double seconds = probe.readSeconds(mapped, region, LINE, true, options.reads(), options.reps());
        row(report, region, region, 1, options.reads(), seconds);
      }
      for (long slice : options.slices()) {
        int count = (int) (largest / slice);
        long reads = Math.max(1, options.reads() / count);
        // the slices in address order, as the index join's partitions come, timed as one sweep
        double seconds = probe.sweepSeconds(mapped, slice, count, LINE, reads, options.reps());
        row(report, largest, slice, count, reads * count, seconds);
      }
    }
    return report;
  }

  private static void row(BenchReport report, long region, long slice, int slices, long reads, double seconds) {
    double gib = 1L << 30;
    report.row(region / gib, slice / gib, slices, reads, seconds * 1e3, seconds * 1e9 / reads, reads / seconds / 1e6,
        reads * (double) LINE / seconds / 1e9);
    System.out.printf(Locale.ROOT, "  region %7.2f GiB in %3d slice(s) of %7.2f GiB: %8.2f ns per read, %7.2f GB/s"
        + " of lines%n", region / gib, slices, slice / gib, seconds * 1e9 / reads, reads * (double) LINE / seconds
        / 1e9);
  }

  public static void main(String[] args) throws IOException {
    Options options = Options.parse(args);
    CudaDevice device = GpuRuntime.requireDevice();
    System.out.println("random " + LINE + "-byte reads over the link: regions " + options.regions() + ", slices "
        + options.slices() + " of the largest, " + options.reads() + " reads, median of " + options.reps() + ", "
        + device);
    BenchReport report = measure(device, options);
    System.out.println(report.toTable());
    if (options.out() != null) {
      report.writeCsv(options.out());
    }
  }
}
