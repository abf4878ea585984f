package org.spillway.gpu.calibrate;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.spillway.gpu.SpillwayHome;

/**
 * What calibration measures and how long it may take: the mode the profile records
 * ({@link MachineProfile#calibrationMode}), bytes streamed per transfer method, size of the buffers probed for
 * reads and writes, timed repetitions (the median is kept), and whether the link reads are probed at every
 * granularity and pattern or only where the cost model reads them; and the pinned region beyond the GPU's TLB reach
 * whose random line reads the index join's cost reads ({@code tlbProbeBytes}, 0: not measured, the cost assumes it).
 */
public record CalibrationOptions(String mode, long methodBytes, long probeBytes, long cpuScanBytes, int reps,
    boolean everyLinkRead, long tlbProbeBytes) {
  /**
   * The most a region beyond the TLB's reach takes: the V100's reach is 32 GiB (digest 1.4), and pinning more costs
   * the calibration seconds per GiB.
   */
  static final long MAX_TLB_PROBE_BYTES = 64L << 30;
  /** The default: 2 GiB per method, 1 GiB probe buffers, 2 GiB CPU scan, 5 repetitions, a region beyond the TLB. */
  public static final CalibrationOptions FULL = new CalibrationOptions(MachineProfile.MODE_FULL, 2L << 30, 1L << 30,
      2L << 30, 5, true, tlbProbeBytes(hostMemoryBytes()));
  /** {@code --quick}: 256 MiB per method, 128 MiB probes, 256 MiB CPU scan, 3 repetitions. */
  public static final CalibrationOptions QUICK = new CalibrationOptions(MachineProfile.MODE_QUICK, 256L << 20,
      128L << 20, 256L << 20, 3, true, 0);
  /**
   * The calibration a process runs on first use of a GPU without a profile (it delays the first query, so it
   * measures only what the cost models read): 128 MiB per method (eight 16 MiB transfer chunks, so the methods
   * still pipeline), 128 MiB probes (beyond the GPU's L2, which would otherwise serve the random reads), the
   * random 8-byte link reads alone, and 128 MiB of CPU input, whose joins' linear-probing table (32 MiB) is the
   * size of a common last-level cache (so that rate comes out optimistic where the cache is larger).
   */
  public static final CalibrationOptions FIRST_USE = new CalibrationOptions(MachineProfile.MODE_FIRST_USE,
      128L << 20, 128L << 20, 128L << 20, 3, false, 0);

  /** Options without the region beyond the TLB (its reads are assumed). */
  public CalibrationOptions(String mode, long methodBytes, long probeBytes, long cpuScanBytes, int reps,
      boolean everyLinkRead) {
    this(mode, methodBytes, probeBytes, cpuScanBytes, reps, everyLinkRead, 0);
  }

  public CalibrationOptions {
    if (mode == null || mode.isBlank()) {
      throw new IllegalArgumentException("calibration mode must be named (e.g. " + MachineProfile.MODE_FULL + ")");
    }
    if (Long.bitCount(probeBytes) != 1 || probeBytes < (1 << 20)) {
      throw new IllegalArgumentException("probeBytes must be a power of two of at least 1 MiB, got " + probeBytes);
    }
    if (tlbProbeBytes != 0 && (Long.bitCount(tlbProbeBytes) != 1 || tlbProbeBytes <= probeBytes)) {
      throw new IllegalArgumentException("tlbProbeBytes must be 0 or a power of two above probeBytes, got "
          + tlbProbeBytes);
    }
    if (methodBytes < (1 << 20) || cpuScanBytes < (1 << 20) || reps < 1) {
      throw new IllegalArgumentException("calibration sizes must be at least 1 MiB and reps at least 1: " + this);
    }
  }

  /** Where the profile goes unless told otherwise: machine-profile.json in {@link SpillwayHome} (~/.spillway). */
  public static Path defaultProfilePath() {
    return SpillwayHome.directory().resolve("machine-profile.json");
  }

  /**
   * The region beyond the TLB's reach on a host of {@code hostBytes}: the largest power of two within a third of its
   * memory (the rest stays for the process and the OS) and {@link #MAX_TLB_PROBE_BYTES}; 0 where that is not above
   * the probe buffers of a full calibration.
   */
  static long tlbProbeBytes(long hostBytes) {
    long bytes = Long.highestOneBit(Math.max(1, Math.min(MAX_TLB_PROBE_BYTES, hostBytes / 3)));
    return bytes > (1L << 30) ? bytes : 0;
  }

  private static long hostMemoryBytes() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
        ? os.getTotalMemorySize() : 0;
  }
}
