package org.spillway.adapter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.gpu.calibrate.MachineProfile;

/** {@code spillway calibrate --show}: which profile planning reads and how it was measured, measuring nothing. */
class CalibrateCommandTest {
  @TempDir Path dir;

  private static String show(Path path) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CalibrateCommand.show(path, new PrintStream(out, true, StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }

  private static MachineProfile profile(String mode) {
    return new MachineProfile(MachineProfile.FORMAT_VERSION, "2026-11-26T00:00:00Z", "gpu host", 16, 61.25,
        new MachineProfile.GpuInfo("H100 (test)", 80L << 30, 76L << 30, 132, false), null,
        Map.of("pinned copy", 53.5, "zero-copy", 49.75), Map.of(), 55.0, List.of(), 50.0, 2400.0, 0.3, 17.5,
        Map.of(), mode);
  }

  @Test void aQuickProfileShowsAsCalibratedQuickWithItsMode() throws Exception {
    Path file = dir.resolve("machine-profile.json");
    profile(MachineProfile.MODE_FIRST_USE).write(file);
    String shown = show(file);
    assertTrue(shown.startsWith(file + ": calibrated (quick) (mode quick (first use)) on gpu host at "
        + "2026-11-26T00:00:00Z\n"), shown);
    assertTrue(shown.contains("H100 (test): pinned copy 53.50 GB/s, zero-copy 49.75 GB/s, GPU memory 2400.00 GB/s"),
        shown);
    assertTrue(shown.contains("16 CPU cores: scan 61.25 GB/s, Q6-shaped pipeline 17.50 GB/s"), shown);
    assertTrue(shown.contains("index lookups: unmeasured (the index join's costs are assumed)"), shown);
  }

  @Test void theIndexLookupRatesShowWhereMeasured() throws Exception {
    MachineProfile p = profile(MachineProfile.MODE_FULL);
    MachineProfile withLookups = new MachineProfile(p.formatVersion(), p.createdAt(), p.host(), p.cpuCores(),
        p.cpuScanGbPerSecond(), p.gpu(), null, p.transferGbPerSecond(), p.unsupportedTransfers(),
        p.rawPinnedCopyGbPerSecond(), p.linkReads(), p.hostWriteGbPerSecond(), p.gpuMemoryReadGbPerSecond(),
        p.gpuPipelineRunMillis(), p.cpuPipelineGbPerSecond(), p.cpuJoinTuplesPerSecond(), p.calibrationMode(), null,
        new MachineProfile.IndexLookupRates(21.5, 1L << 30, null, null, 2.5e6, 4e6, 2L << 30));
    Path file = dir.resolve("lookups.json");
    withLookups.write(file);
    assertTrue(show(file).contains("index lookups: binary search 2.50 M/s, RadixSpline 4.00 M/s per core; random"
        + " 128 B link reads 21.50 GB/s within the TLB's reach, unmeasured beyond it"), show(file));
  }

  @Test void aFullProfileShowsAsCalibrated() throws Exception {
    Path file = dir.resolve("full.json");
    profile(MachineProfile.MODE_FULL).write(file);
    assertTrue(show(file).startsWith(file + ": calibrated (mode full) on gpu host"), show(file));
  }

  @Test void noProfileSaysWhatPlanningUsesInstead() throws Exception {
    String shown = show(dir.resolve("none.json"));
    assertTrue(shown.startsWith("No machine profile at " + dir.resolve("none.json") + ": planning uses assumed"),
        shown);
  }

  @Test void showMeasuresNothingSoItTakesNoQuick() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = SpillwayCli.run(new String[] {"calibrate", "--show", "--quick", "--out", dir.resolve("p.json").toString()},
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(1, code);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("spillway: --show measures nothing"), err.toString());
  }
}
