package org.spillway.gpu.calibrate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;

/**
 * Finds the machine profile the cost model reads: the file named by {@code -Dspillway.profile}, else the one
 * {@code spillway calibrate} wrote to machine-profile.json in {@link org.spillway.gpu.SpillwayHome} (~/.spillway), else an uncalibrated profile built
 * from this machine's core count, its GPU (if any) and the nominal PCIe Gen5 x16 numbers, marked as assumed.
 */
public final class MachineProfiles {
  /** System property naming a profile file to use instead of the default location. */
  public static final String PROFILE_PROPERTY = "spillway.profile";
  /** Host string of an uncalibrated profile, so that EXPLAIN and logs can say the costs are assumptions. */
  public static final String ASSUMED_HOST = "uncalibrated (assumed PCIe Gen5 x16 numbers)";
  /** CPU backend rate on a Q6-shaped pipeline per core when uncalibrated (GB/s of input columns). */
  static final double ASSUMED_CPU_PIPELINE_GB_PER_SECOND_PER_CORE = 1.0;

  private static volatile MachineProfile cached;

  private MachineProfiles() {
  }

  /** The profile in use; read once per JVM (see {@link #reload()}). A broken profile file is an error. */
  public static MachineProfile current() {
    MachineProfile p = cached;
    if (p == null) {
      synchronized (MachineProfiles.class) {
        if (cached == null) {
          cached = load();
        }
        p = cached;
      }
    }
    return p;
  }

  /**
   * Uses {@code profile} instead of the machine's until the returned handle is closed: plan tests pin one so
   * that their costs do not depend on whether {@code spillway calibrate} ran on this machine.
   */
  public static AutoCloseable pin(MachineProfile profile) {
    MachineProfile previous;
    synchronized (MachineProfiles.class) {
      previous = cached;
      cached = profile;
    }
    return () -> {
      synchronized (MachineProfiles.class) {
        cached = previous;
      }
    };
  }

  /** The uncalibrated profile of this machine (assumed numbers), whatever profile file exists. */
  public static MachineProfile uncalibrated() {
    return assumed(GpuRuntime.device());
  }

  /** Forgets the profile read so far (after a calibration), so that the next {@link #current()} reads again. */
  public static void reload() {
    cached = null;
  }

  /** Whether {@code profile} was measured rather than assumed. */
  public static boolean calibrated(MachineProfile profile) {
    return !ASSUMED_HOST.equals(profile.host());
  }

  private static MachineProfile load() {
    String named = System.getProperty(PROFILE_PROPERTY);
    Path path = named != null && !named.isBlank() ? Path.of(named) : CalibrationOptions.defaultProfilePath();
    if (named != null && !named.isBlank() || Files.isRegularFile(path)) {
      try {
        return MachineProfile.read(path);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return assumed(GpuRuntime.device());
  }

  /**
   * A profile from nominal numbers: pinned copy 55 GB/s, zero-copy reads 51 GB/s, pageable copy 8 GB/s,
   * CPU scan 5 GB/s per core, GPU memory 3,000 GB/s (the figures measured on PCIe Gen5 H100 hosts), 1 ms of
   * fixed cost per GPU pipeline run.
   */
  static MachineProfile assumed(Optional<CudaDevice> device) {
    int cores = Runtime.getRuntime().availableProcessors();
    double cpuScan = 5.0 * cores;
    if (device.isEmpty()) {
      return new MachineProfile(MachineProfile.FORMAT_VERSION, Instant.now().toString(), ASSUMED_HOST, cores, cpuScan,
          null, GpuRuntime.unavailableReason(), Map.of(), Map.of(), null, List.of(), null, null, null,
          ASSUMED_CPU_PIPELINE_GB_PER_SECOND_PER_CORE * cores);
    }
    CudaDevice d = device.get();
    var gpu = new MachineProfile.GpuInfo(d.name(), d.totalMemory(), d.allocator().budget(), d.multiprocessors(),
        d.pageableMemoryAccess());
    Map<String, Double> methods = Map.of("pinned copy", 55.0, "zero-copy", 51.0, "staged copy", 45.0,
        "UM prefetch", 49.0, "pageable copy", 8.0, "dynamic pinning", 11.0, "UM migration", 10.0);
    List<MachineProfile.LinkAccess> reads = List.of(new MachineProfile.LinkAccess("sequential", 128, 51.0, 51e9 / 128),
        new MachineProfile.LinkAccess("random", 8, 0.16, 20e6));
    return new MachineProfile(MachineProfile.FORMAT_VERSION, Instant.now().toString(), ASSUMED_HOST, cores, cpuScan,
        gpu, null, methods, Map.of("coherence", "assumed unsupported (PCIe)"), 55.0, reads, 20.0, 3000.0, 1.0,
        ASSUMED_CPU_PIPELINE_GB_PER_SECOND_PER_CORE * cores);
  }
}
