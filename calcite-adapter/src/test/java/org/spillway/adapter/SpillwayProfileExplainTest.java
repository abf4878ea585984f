package org.spillway.adapter;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

/**
 * EXPLAIN says what the costs rest on: a join's {@code costs} and a GPU-costed scan's {@code profile} read
 * {@code calibrated (quick)} where a quick calibration ({@code --quick} or on first use) measured the profile,
 * and the full calibration and the assumed numbers keep their labels.
 */
class SpillwayProfileExplainTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  /** {@code p} as measured in {@code mode}. */
  private static MachineProfile withMode(MachineProfile p, String host, Map<String, Double> cpuJoins, String mode) {
    return new MachineProfile(p.formatVersion(), p.createdAt(), host, p.cpuCores(), p.cpuScanGbPerSecond(), p.gpu(),
        p.gpuUnavailableReason(), p.transferGbPerSecond(), p.unsupportedTransfers(), p.rawPinnedCopyGbPerSecond(),
        p.linkReads(), p.hostWriteGbPerSecond(), p.gpuMemoryReadGbPerSecond(), p.gpuPipelineRunMillis(),
        p.cpuPipelineGbPerSecond(), cpuJoins, mode);
  }

  /** This machine's assumed profile with every CPU join rate measured (as calibration leaves it), in {@code mode}. */
  private static MachineProfile measuredJoins(String mode) {
    return withMode(MachineProfiles.uncalibrated(), "test host", Map.of(
        MachineProfile.CPU_JOIN_NOPA_PERFECT_HASH, 5.6e8, MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING, 1.9e8,
        MachineProfile.CPU_JOIN_RADIX, 1.7e8, MachineProfile.CPU_JOIN_NOPA_LINEAR_PROBING_CACHED, 7.0e8), mode);
  }

  @Test void aJoinSaysWhetherItsCostsComeFromAQuickCalibration() throws Exception {
    String join = "select count(*) from nation join region on n_regionkey = r_regionkey";
    try (AutoCloseable pinned = MachineProfiles.pin(measuredJoins(MachineProfile.MODE_FIRST_USE))) {
      SpillwayAssert.that(dir).query(join).explainContains("costs=[calibrated (quick)]");
    }
    try (AutoCloseable pinned = MachineProfiles.pin(measuredJoins(MachineProfile.MODE_FULL))) {
      SpillwayAssert.that(dir).query(join).explainContains("costs=[calibrated]").explainLacks("(quick)");
    }
    try (AutoCloseable pinned = MachineProfiles.pin(MachineProfiles.uncalibrated())) {
      SpillwayAssert.that(dir).query(join).explainContains("costs=[assumed]").explainLacks("calibrated");
    }
  }

  @Test void aGpuCostedScanSaysWhetherItsProfileComesFromAQuickCalibration() throws Exception {
    MachineProfile full = AssumedGpuSite.h100(true).profile();
    MachineProfile quick = withMode(full, full.host(), full.cpuJoinTuplesPerSecond(), MachineProfile.MODE_FIRST_USE);
    String scan = "select sum(l_quantity) from lineitem where l_discount > 0.05";
    try (AutoCloseable gpu = SpillwayGpuSite.assume(new AssumedGpuSite(quick, 76L << 30))) {
      SpillwayAssert.that(dir, "device=gpu").query(scan).explainContains("ms], profile=[calibrated (quick)])");
    }
    try (AutoCloseable gpu = SpillwayGpuSite.assume(AssumedGpuSite.h100(true))) {
      SpillwayAssert.that(dir, "device=gpu").query(scan).explainContains("cost=[gpu ").explainLacks("profile=");
    }
  }
}
