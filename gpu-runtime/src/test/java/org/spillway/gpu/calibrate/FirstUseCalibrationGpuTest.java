package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.SpillwayHome;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The real calibration on first use, into a temporary Spillway home: it must finish within seconds (a query
 * waits for it) and save a profile with every number the cost models read.
 */
@GpuTest
class FirstUseCalibrationGpuTest {
  /** The bound the test holds first use to; it aims at about 5 s on a 16-core H100 host. */
  private static final double MAX_SECONDS = 15;

  @Test
  void firstUseMeasuresQuicklyAndSavesAValidProfile(@TempDir Path home) throws Exception {
    String savedHome = System.setProperty(SpillwayHome.PROPERTY, home.toString());
    ByteArrayOutputStream messages = new ByteArrayOutputStream();
    MachineProfile profile;
    long start = System.nanoTime();
    try {
      // No -Dspillway.profile and no onFirstUse property (the build turns first use off for other tests).
      ProfileLoader loader = new ProfileLoader(ProfileLoader.THIS_MACHINE, Map.<String, String>of()::get,
          CalibrationOptions::defaultProfilePath, new PrintStream(messages, true, StandardCharsets.UTF_8));
      profile = loader.current();
    } finally {
      if (savedHome != null) {
        System.setProperty(SpillwayHome.PROPERTY, savedHome);
      } else {
        System.clearProperty(SpillwayHome.PROPERTY);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    String said = messages.toString(StandardCharsets.UTF_8);
    assertTrue(seconds < MAX_SECONDS, "first use took " + seconds + " s: " + said);
    assertEquals(1, said.lines().count(), said);
    assertTrue(said.contains("measured a quick one in"), said);
    Path file = home.resolve("machine-profile.json");
    assertEquals(profile, MachineProfile.read(file));
    assertEquals(MachineProfile.MODE_FIRST_USE, profile.calibrationMode());
    assertTrue(MachineProfiles.calibrated(profile) && profile.quick());
    assertFalse(profile.cpuOnly(), said);
    var device = GpuRuntime.requireDevice();
    for (TransferMethod m : TransferMethod.values()) {
      if (m.support(device).supported()) {
        Double gbs = profile.transferGbPerSecond().get(m.label());
        assertTrue(gbs != null && gbs > 0.1, m.label() + ": " + gbs);
      } else {
        assertTrue(profile.unsupportedTransfers().containsKey(m.label()), m.label());
      }
    }
    // Only the link reads the join cost model charges.
    List<MachineProfile.LinkAccess> reads = profile.linkReads();
    assertEquals(1, reads.size(), reads.toString());
    assertEquals("random", reads.get(0).pattern());
    assertEquals(Calibrator.COST_MODEL_RANDOM_READ_BYTES, reads.get(0).granularityBytes());
    assertTrue(reads.get(0).accessesPerSecond() > 0);
    assertTrue(profile.rawPinnedCopyGbPerSecond() > 0 && profile.hostWriteGbPerSecond() > 0);
    assertTrue(profile.gpuMemoryReadGbPerSecond() > 2 * profile.rawPinnedCopyGbPerSecond(), profile.toString());
    assertTrue(profile.gpuPipelineRunMillis() > 0 && profile.cpuPipelineGbPerSecond() > 0
        && profile.cpuScanGbPerSecond() > 0, profile.toString());
    assertEquals(4, profile.cpuJoinTuplesPerSecond().size(), profile.cpuJoinTuplesPerSecond().toString());
  }
}
