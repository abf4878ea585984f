package org.spillway.gpu.calibrate;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/**
 * What calibration measured on this machine, read by the cost model: bandwidth per transfer method,
 * reads over the link by pattern and granularity, writes to host memory, GPU memory and CPU scan
 * bandwidth, the fixed cost of one GPU pipeline run and the host's cost per row a GPU pipeline returns
 * ({@code gpuRowsNanosPerRow}: reading the rows back and assembling them), the CPU backend's rate on a Q6-shaped
 * pipeline, and the
 * CPU joins' rates in tuples (|R| + |S|) per second on all cores, aggregated output, by workload (the keys below),
 * and the windowed index join's lookup rates ({@link IndexLookupRates}).
 * Bandwidths are GB/s (1e9 bytes per second). Without a GPU, {@code gpu} and the GPU-only numbers are null and
 * {@code gpuUnavailableReason} says why. Numbers added after format 1 are nullable and absent from older files,
 * which read as null (the cost model assumes them). {@code calibrationMode} records how the numbers were measured
 * ({@link #MODE_FULL}, {@link #MODE_QUICK}, {@link #MODE_FIRST_USE}); null in files from before it was recorded
 * and in the assumed profile.
 */
public record MachineProfile(
    int formatVersion,
    String createdAt,
    String host,
    int cpuCores,
    double cpuScanGbPerSecond,
    GpuInfo gpu,
    String gpuUnavailableReason,
    Map<String, Double> transferGbPerSecond,
    Map<String, String> unsupportedTransfers,
    Double rawPinnedCopyGbPerSecond,
    List<LinkAccess> linkReads,
    Double hostWriteGbPerSecond,
    Double gpuMemoryReadGbPerSecond,
    Double gpuPipelineRunMillis,
    Double cpuPipelineGbPerSecond,
    Map<String, Double> cpuJoinTuplesPerSecond,
    String calibrationMode,
    Double gpuRowsNanosPerRow,
    IndexLookupRates indexLookups) {

  public static final int FORMAT_VERSION = 1;
  /** {@code spillway calibrate}: full-size buffers, every probe. */
  public static final String MODE_FULL = "full";
  /** {@code spillway calibrate --quick}: smaller buffers and fewer repetitions. */
  public static final String MODE_QUICK = "quick";
  /** Measured by a process that found no profile on a GPU machine ({@link CalibrationOptions#FIRST_USE}). */
  public static final String MODE_FIRST_USE = "quick (first use)";
  /** CPU NOPA join with its perfect-hash array (dense unique build keys). */
  public static final String CPU_JOIN_NOPA_PERFECT_HASH = "nopa-perfect-hash";
  /** CPU NOPA join with a linear-probing table beyond the last-level cache (sparse keys). */
  public static final String CPU_JOIN_NOPA_LINEAR_PROBING = "nopa-linear-probing";
  /** CPU NOPA join with a linear-probing table within the last-level cache. */
  public static final String CPU_JOIN_NOPA_LINEAR_PROBING_CACHED = "nopa-linear-probing-cached";
  /** CPU radix join (sparse keys, a large build side). */
  public static final String CPU_JOIN_RADIX = "radix";
  /**
   * Probe rows per build row of the joins whose rates {@code cpuJoinTuplesPerSecond} holds (Pump Up the Volume's
   * workload A has 16, TPC-H Q3 22): the cost model splits a rate into the build and the probe rows' shares.
   */
  public static final int CPU_JOIN_PROBE_PER_BUILD = 8;

  /** A profile without the index lookup rates (as files before {@code indexLookups}: the cost model assumes them). */
  public MachineProfile(int formatVersion, String createdAt, String host, int cpuCores, double cpuScanGbPerSecond,
      GpuInfo gpu, String gpuUnavailableReason, Map<String, Double> transferGbPerSecond,
      Map<String, String> unsupportedTransfers, Double rawPinnedCopyGbPerSecond, List<LinkAccess> linkReads,
      Double hostWriteGbPerSecond, Double gpuMemoryReadGbPerSecond, Double gpuPipelineRunMillis,
      Double cpuPipelineGbPerSecond, Map<String, Double> cpuJoinTuplesPerSecond, String calibrationMode,
      Double gpuRowsNanosPerRow) {
    this(formatVersion, createdAt, host, cpuCores, cpuScanGbPerSecond, gpu, gpuUnavailableReason, transferGbPerSecond,
        unsupportedTransfers, rawPinnedCopyGbPerSecond, linkReads, hostWriteGbPerSecond, gpuMemoryReadGbPerSecond,
        gpuPipelineRunMillis, cpuPipelineGbPerSecond, cpuJoinTuplesPerSecond, calibrationMode, gpuRowsNanosPerRow,
        null);
  }

  /** A profile without the cost of rows a GPU pipeline returns (as files before {@code gpuRowsNanosPerRow}). */
  public MachineProfile(int formatVersion, String createdAt, String host, int cpuCores, double cpuScanGbPerSecond,
      GpuInfo gpu, String gpuUnavailableReason, Map<String, Double> transferGbPerSecond,
      Map<String, String> unsupportedTransfers, Double rawPinnedCopyGbPerSecond, List<LinkAccess> linkReads,
      Double hostWriteGbPerSecond, Double gpuMemoryReadGbPerSecond, Double gpuPipelineRunMillis,
      Double cpuPipelineGbPerSecond, Map<String, Double> cpuJoinTuplesPerSecond, String calibrationMode) {
    this(formatVersion, createdAt, host, cpuCores, cpuScanGbPerSecond, gpu, gpuUnavailableReason, transferGbPerSecond,
        unsupportedTransfers, rawPinnedCopyGbPerSecond, linkReads, hostWriteGbPerSecond, gpuMemoryReadGbPerSecond,
        gpuPipelineRunMillis, cpuPipelineGbPerSecond, cpuJoinTuplesPerSecond, calibrationMode, null, null);
  }

  /** A profile that does not say how it was measured (as files before {@code calibrationMode}). */
  public MachineProfile(int formatVersion, String createdAt, String host, int cpuCores, double cpuScanGbPerSecond,
      GpuInfo gpu, String gpuUnavailableReason, Map<String, Double> transferGbPerSecond,
      Map<String, String> unsupportedTransfers, Double rawPinnedCopyGbPerSecond, List<LinkAccess> linkReads,
      Double hostWriteGbPerSecond, Double gpuMemoryReadGbPerSecond, Double gpuPipelineRunMillis,
      Double cpuPipelineGbPerSecond, Map<String, Double> cpuJoinTuplesPerSecond) {
    this(formatVersion, createdAt, host, cpuCores, cpuScanGbPerSecond, gpu, gpuUnavailableReason, transferGbPerSecond,
        unsupportedTransfers, rawPinnedCopyGbPerSecond, linkReads, hostWriteGbPerSecond, gpuMemoryReadGbPerSecond,
        gpuPipelineRunMillis, cpuPipelineGbPerSecond, cpuJoinTuplesPerSecond, null);
  }

  /** A profile without the CPU join rates (the cost model assumes them). */
  public MachineProfile(int formatVersion, String createdAt, String host, int cpuCores, double cpuScanGbPerSecond,
      GpuInfo gpu, String gpuUnavailableReason, Map<String, Double> transferGbPerSecond,
      Map<String, String> unsupportedTransfers, Double rawPinnedCopyGbPerSecond, List<LinkAccess> linkReads,
      Double hostWriteGbPerSecond, Double gpuMemoryReadGbPerSecond, Double gpuPipelineRunMillis,
      Double cpuPipelineGbPerSecond) {
    this(formatVersion, createdAt, host, cpuCores, cpuScanGbPerSecond, gpu, gpuUnavailableReason, transferGbPerSecond,
        unsupportedTransfers, rawPinnedCopyGbPerSecond, linkReads, hostWriteGbPerSecond, gpuMemoryReadGbPerSecond,
        gpuPipelineRunMillis, cpuPipelineGbPerSecond, null, null);
  }

  /** A profile without the numbers added after format 1 (they read as unknown). */
  public MachineProfile(int formatVersion, String createdAt, String host, int cpuCores, double cpuScanGbPerSecond,
      GpuInfo gpu, String gpuUnavailableReason, Map<String, Double> transferGbPerSecond,
      Map<String, String> unsupportedTransfers, Double rawPinnedCopyGbPerSecond, List<LinkAccess> linkReads,
      Double hostWriteGbPerSecond, Double gpuMemoryReadGbPerSecond) {
    this(formatVersion, createdAt, host, cpuCores, cpuScanGbPerSecond, gpu, gpuUnavailableReason, transferGbPerSecond,
        unsupportedTransfers, rawPinnedCopyGbPerSecond, linkReads, hostWriteGbPerSecond, gpuMemoryReadGbPerSecond,
        null, null, null, null);
  }

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** The GPU: name, memory, the budget Spillway may use, SM count and pageable-access capability. */
  public record GpuInfo(String name, long memoryBytes, long budgetBytes, int multiprocessors,
      boolean pageableMemoryAccess) {}

  /**
   * Reads of {@code granularityBytes} from pinned host memory by GPU kernels over the link:
   * "sequential" (coalesced) or "random"; useful bytes per second and accesses per second.
   */
  public record LinkAccess(String pattern, int granularityBytes, double gbPerSecond, double accessesPerSecond) {}

  /**
   * What the windowed index join's cost reads (issue #15, digest 3.3): random {@value #INDEX_LINE_BYTES}-byte reads
   * by GPU kernels over the link from pinned host memory, over a region the GPU's TLB covers
   * ({@code linkSmallRegionBytes}) and over one beyond its reach ({@code linkLargeRegionBytes}, where nearly every
   * access also translates its address), in useful GB/s; and CPU index lookups per second per core of a binary search
   * and a RadixSpline over {@code cpuRegionBytes} of sorted keys, more than the last-level cache holds. The GPU
   * numbers are null without a GPU, the large region's also where the calibration had no room for it (quick modes).
   */
  public record IndexLookupRates(Double linkRandomLineSmallGbPerSecond, Long linkSmallRegionBytes,
      Double linkRandomLineLargeGbPerSecond, Long linkLargeRegionBytes, double cpuBinarySearchPerSecondPerCore,
      double cpuRadixSplinePerSecondPerCore, long cpuRegionBytes) {}

  /** Bytes of one random read of an index lookup over the link: a GPU cache line (digest 3.3). */
  public static final int INDEX_LINE_BYTES = 128;

  /** True when no GPU was measured (the CPU backend serves). */
  public boolean cpuOnly() {
    return gpu == null;
  }

  /** Whether the numbers come from a quick calibration ({@code --quick} or on first use): less precise than full. */
  public boolean quick() {
    return MODE_QUICK.equals(calibrationMode) || MODE_FIRST_USE.equals(calibrationMode);
  }

  /**
   * Writes the profile as JSON, creating the parent directory: into a temporary file beside it, then renamed over
   * it, so that a reader (another process starting) never sees half a profile and a failed write leaves the old one.
   */
  public void write(Path json) throws IOException {
    Path parent = json.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path temp = Files.createTempFile(parent, "." + json.getFileName(), ".tmp");
    try {
      JSON.writeValue(temp.toFile(), this);
      try {
        Files.move(temp, json, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, json, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Reads a profile written by {@link #write}; the error names the file and what is wrong. */
  public static MachineProfile read(Path json) throws IOException {
    if (!Files.isRegularFile(json)) {
      throw new IOException("no machine profile at " + json + " (run: spillway calibrate)");
    }
    MachineProfile p;
    try {
      p = JSON.readValue(json.toFile(), MachineProfile.class);
    } catch (IOException e) {
      throw new IOException("machine profile " + json + " is not valid: " + e.getMessage(), e);
    }
    if (p.formatVersion != FORMAT_VERSION) {
      throw new IOException("machine profile " + json + " has format " + p.formatVersion + ", this build reads "
          + FORMAT_VERSION + " (run: spillway calibrate)");
    }
    return p;
  }
}
