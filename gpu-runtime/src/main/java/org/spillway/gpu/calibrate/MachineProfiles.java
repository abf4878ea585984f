package org.spillway.gpu.calibrate;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;

/**
 * The machine profile the cost model reads: the file named by {@code -Dspillway.profile}, else the one
 * {@code spillway calibrate} wrote to machine-profile.json in {@link org.spillway.gpu.SpillwayHome} (~/.spillway);
 * without either, on a GPU machine, a quick calibration on first use saved there ({@link ProfileLoader}); else an
 * uncalibrated profile built from this machine's core count, its GPU (if any) and the nominal PCIe Gen5 x16
 * numbers, marked as assumed.
 */
public final class MachineProfiles {
  /** System property naming a profile file to use instead of the default location. */
  public static final String PROFILE_PROPERTY = "spillway.profile";
  /** System property: {@code false} stops a GPU machine without a profile from calibrating on first use. */
  public static final String ON_FIRST_USE_PROPERTY = "spillway.calibrate.onFirstUse";
  /** Host string of an uncalibrated profile, so that EXPLAIN and logs can say the costs are assumptions. */
  public static final String ASSUMED_HOST = "uncalibrated (assumed PCIe Gen5 x16 numbers)";
  /** CPU backend rate on a Q6-shaped pipeline per core when uncalibrated (GB/s of input columns). */
  static final double ASSUMED_CPU_PIPELINE_GB_PER_SECOND_PER_CORE = 1.0;

  private static final ProfileLoader LOADER = ProfileLoader.forThisProcess();

  private MachineProfiles() {
  }

  /**
   * The profile in use; found once per JVM (see {@link #reload()}), measured first where a GPU machine has none.
   * A broken profile file is an error.
   */
  public static MachineProfile current() {
    return LOADER.current();
  }

  /**
   * Uses {@code profile} instead of the machine's until the returned handle is closed: plan tests pin one so
   * that their costs do not depend on whether {@code spillway calibrate} ran on this machine.
   */
  public static AutoCloseable pin(MachineProfile profile) {
    MachineProfile previous = LOADER.replace(profile);
    return () -> LOADER.replace(previous);
  }

  /** The uncalibrated profile of this machine (assumed numbers), whatever profile file exists. */
  public static MachineProfile uncalibrated() {
    return assumed(GpuRuntime.device());
  }

  /** Forgets the profile read so far (after a calibration), so that the next {@link #current()} reads again. */
  public static void reload() {
    LOADER.replace(null);
  }

  /** The file {@link #current()} reads: the one {@code -Dspillway.profile} names, else the default location. */
  public static Path path() {
    return LOADER.path();
  }

  /** Whether {@code profile} was measured rather than assumed. */
  public static boolean calibrated(MachineProfile profile) {
    return !ASSUMED_HOST.equals(profile.host());
  }

  /**
   * How EXPLAIN and the command line name where a measured profile's numbers come from: {@code calibrated
   * (quick)} for a quick calibration ({@code --quick} or on first use), {@code calibrated} for a full one.
   */
  public static String calibratedLabel(MachineProfile profile) {
    return profile.quick() ? "calibrated (quick)" : "calibrated";
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
