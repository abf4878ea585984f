package org.spillway.gpu.calibrate;

import java.nio.file.Path;
import org.spillway.gpu.SpillwayHome;

/**
 * What calibration measures and how long it may take: the mode the profile records
 * ({@link MachineProfile#calibrationMode}), bytes streamed per transfer method, size of the buffers probed for
 * reads and writes, timed repetitions (the median is kept), and whether the link reads are probed at every
 * granularity and pattern or only where the cost model reads them.
 */
public record CalibrationOptions(String mode, long methodBytes, long probeBytes, long cpuScanBytes, int reps,
    boolean everyLinkRead) {
  /** The default: 2 GiB per method, 1 GiB probe buffers, 2 GiB CPU scan, 5 repetitions. */
  public static final CalibrationOptions FULL = new CalibrationOptions(MachineProfile.MODE_FULL, 2L << 30, 1L << 30,
      2L << 30, 5, true);
  /** {@code --quick}: 256 MiB per method, 128 MiB probes, 256 MiB CPU scan, 3 repetitions. */
  public static final CalibrationOptions QUICK = new CalibrationOptions(MachineProfile.MODE_QUICK, 256L << 20,
      128L << 20, 256L << 20, 3, true);
  /**
   * The calibration a process runs on first use of a GPU without a profile (it delays the first query, so it
   * measures only what the cost models read): 128 MiB per method (eight 16 MiB transfer chunks, so the methods
   * still pipeline), 128 MiB probes (beyond the GPU's L2, which would otherwise serve the random reads), the
   * random 8-byte link reads alone, and 128 MiB of CPU input, whose joins' linear-probing table (32 MiB) is the
   * size of a common last-level cache (so that rate comes out optimistic where the cache is larger).
   */
  public static final CalibrationOptions FIRST_USE = new CalibrationOptions(MachineProfile.MODE_FIRST_USE,
      128L << 20, 128L << 20, 128L << 20, 3, false);

  public CalibrationOptions {
    if (mode == null || mode.isBlank()) {
      throw new IllegalArgumentException("calibration mode must be named (e.g. " + MachineProfile.MODE_FULL + ")");
    }
    if (Long.bitCount(probeBytes) != 1 || probeBytes < (1 << 20)) {
      throw new IllegalArgumentException("probeBytes must be a power of two of at least 1 MiB, got " + probeBytes);
    }
    if (methodBytes < (1 << 20) || cpuScanBytes < (1 << 20) || reps < 1) {
      throw new IllegalArgumentException("calibration sizes must be at least 1 MiB and reps at least 1: " + this);
    }
  }

  /** Where the profile goes unless told otherwise: machine-profile.json in {@link SpillwayHome} (~/.spillway). */
  public static Path defaultProfilePath() {
    return SpillwayHome.directory().resolve("machine-profile.json");
  }
}
