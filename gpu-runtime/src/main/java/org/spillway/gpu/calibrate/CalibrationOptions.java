package org.spillway.gpu.calibrate;

import java.nio.file.Path;
import org.spillway.gpu.SpillwayHome;

/**
 * What calibration measures and how long it may take: bytes streamed per transfer method, size of the
 * buffers probed for reads and writes, and timed repetitions (the median is kept).
 */
public record CalibrationOptions(long methodBytes, long probeBytes, long cpuScanBytes, int reps) {
  /** The default: 2 GiB per method, 1 GiB probe buffers, 2 GiB CPU scan, 5 repetitions. */
  public static final CalibrationOptions FULL = new CalibrationOptions(2L << 30, 1L << 30, 2L << 30, 5);
  /** {@code --quick}: 256 MiB per method, 128 MiB probes, 256 MiB CPU scan, 3 repetitions. */
  public static final CalibrationOptions QUICK = new CalibrationOptions(256L << 20, 128L << 20, 256L << 20, 3);

  public CalibrationOptions {
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
