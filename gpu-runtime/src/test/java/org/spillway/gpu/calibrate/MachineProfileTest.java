package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CPU-only calibration path (the CI case) and the profile's JSON form. */
class MachineProfileTest {
  private static final CalibrationOptions TINY = new CalibrationOptions(MachineProfile.MODE_QUICK, 1 << 20, 1 << 20,
      16 << 20, 2, true);

  @Test
  void cpuOnlyProfileRoundTrips(@TempDir Path dir) throws IOException {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    MachineProfile p = Calibrator.cpuOnly(TINY, new PrintStream(log, true), "no CUDA device (test)");
    assertTrue(p.cpuOnly());
    assertEquals(TINY.mode(), p.calibrationMode());
    assertTrue(p.cpuScanGbPerSecond() > 0, "CPU scan " + p.cpuScanGbPerSecond());
    assertTrue(log.toString().contains("CPU scan"), log.toString());
    assertTrue(p.cpuPipelineGbPerSecond() > 0, "CPU pipeline " + p.cpuPipelineGbPerSecond());
    assertEquals(4, p.cpuJoinTuplesPerSecond().size(), p.cpuJoinTuplesPerSecond().toString());
    assertTrue(log.toString().contains("CPU join nopa-linear-probing "), log.toString());
    MachineProfile.IndexLookupRates lookups = p.indexLookups();
    assertTrue(lookups.cpuBinarySearchPerSecondPerCore() > 0 && lookups.cpuRadixSplinePerSecondPerCore() > 0,
        lookups.toString());
    assertEquals(TINY.cpuScanBytes(), lookups.cpuRegionBytes());
    assertNull(lookups.linkRandomLineSmallGbPerSecond(), "no GPU, no link reads");
    assertTrue(log.toString().contains("CPU index lookups RADIXSPLINE"), log.toString());
    Path file = dir.resolve("nested/profile.json");
    p.write(file);
    assertEquals(p, MachineProfile.read(file));
    assertTrue(Files.readString(file).contains("\"gpuUnavailableReason\" : \"no CUDA device (test)\""));
  }

  @Test
  void gpuProfileRoundTrips(@TempDir Path dir) throws IOException {
    MachineProfile p = new MachineProfile(MachineProfile.FORMAT_VERSION, "2026-11-22T00:00:00Z", "h", 16, 70.5,
        new MachineProfile.GpuInfo("H100", 80L << 30, 76L << 30, 132, false), null,
        Map.of("zero-copy", 48.7), Map.of("coherence", "PCIe"), 53.2,
        List.of(new MachineProfile.LinkAccess("random", 4, 1.5, 3.75e8)), 45.0, 2000.0);
    p.write(dir.resolve("p.json"));
    assertEquals(p, MachineProfile.read(dir.resolve("p.json")));
  }

  @Test
  void aFormatOneFileWithoutThePipelineAndJoinNumbersReadsThemAsUnknown(@TempDir Path dir) throws IOException {
    MachineProfile p = new MachineProfile(MachineProfile.FORMAT_VERSION, "2026-11-22T00:00:00Z", "h", 16, 70.5,
        null, "no GPU", Map.of(), Map.of(), null, List.of(), null, null, 2.5, 7.5,
        Map.of(MachineProfile.CPU_JOIN_NOPA_PERFECT_HASH, 1.2e9, MachineProfile.CPU_JOIN_RADIX, 2.5e8));
    Path file = dir.resolve("p.json");
    p.write(file);
    assertEquals(p, MachineProfile.read(file));
    assertEquals(2.5e8, MachineProfile.read(file).cpuJoinTuplesPerSecond().get("radix"));
    String older = Files.readString(file).replaceAll(",\\s*\"gpuPipelineRunMillis\" : 2.5", "")
        .replaceAll(",\\s*\"cpuPipelineGbPerSecond\" : 7.5", "")
        .replaceAll(",\\s*\"cpuJoinTuplesPerSecond\" : \\{[^}]*}", "");
    assertTrue(!older.contains("gpuPipelineRunMillis") && !older.contains("cpuPipeline") && !older.contains("cpuJoin"),
        older);
    Files.writeString(file, older);
    assertEquals(null, MachineProfile.read(file).gpuPipelineRunMillis());
    assertEquals(null, MachineProfile.read(file).cpuPipelineGbPerSecond());
    assertEquals(null, MachineProfile.read(file).cpuJoinTuplesPerSecond());
    assertEquals(70.5, MachineProfile.read(file).cpuScanGbPerSecond());
  }

  @Test
  void theCalibrationModeRoundTripsAndAFileWithoutItStillLoads(@TempDir Path dir) throws IOException {
    MachineProfile p = new MachineProfile(MachineProfile.FORMAT_VERSION, "2026-11-26T00:00:00Z", "h", 16, 70.5,
        null, "no GPU", Map.of(), Map.of(), null, List.of(), null, null, null, 7.5, Map.of(),
        MachineProfile.MODE_FIRST_USE);
    Path file = dir.resolve("p.json");
    p.write(file);
    assertEquals(p, MachineProfile.read(file));
    assertTrue(MachineProfile.read(file).quick());
    assertEquals("calibrated (quick)", MachineProfiles.calibratedLabel(MachineProfile.read(file)));
    String older = Files.readString(file).replaceAll(",\\s*\"calibrationMode\" : \"quick \\(first use\\)\"", "");
    assertFalse(older.contains("calibrationMode"), older);
    Files.writeString(file, older);
    MachineProfile read = MachineProfile.read(file);
    assertNull(read.calibrationMode());
    assertFalse(read.quick());
    assertEquals("calibrated", MachineProfiles.calibratedLabel(read));
    assertEquals(7.5, read.cpuPipelineGbPerSecond());
  }

  @Test
  void theIndexLookupRatesRoundTripAndAFileWithoutThemStillLoads(@TempDir Path dir) throws IOException {
    var lookups = new MachineProfile.IndexLookupRates(9.5, 1L << 30, 2.5, 32L << 30, 4e6, 9e6, 2L << 30);
    MachineProfile p = new MachineProfile(MachineProfile.FORMAT_VERSION, "2026-11-26T00:00:00Z", "h", 16, 70.5,
        new MachineProfile.GpuInfo("H100", 80L << 30, 76L << 30, 132, false), null, Map.of("zero-copy", 48.7),
        Map.of(), 53.2, List.of(), 45.0, 2000.0, 1.0, 7.5, Map.of(), MachineProfile.MODE_FULL, 20.0, lookups);
    Path file = dir.resolve("p.json");
    p.write(file);
    assertEquals(p, MachineProfile.read(file));
    assertEquals(2.5, MachineProfile.read(file).indexLookups().linkRandomLineLargeGbPerSecond());
    String older = Files.readString(file).replaceAll(",\\s*\"indexLookups\" : \\{[^}]*}", "");
    assertFalse(older.contains("indexLookups"), older);
    Files.writeString(file, older);
    MachineProfile read = MachineProfile.read(file);
    assertNull(read.indexLookups());
    assertEquals(20.0, read.gpuRowsNanosPerRow());
  }

  @Test
  void theRegionBeyondTheTlbIsAPowerOfTwoWithinAThirdOfTheHost() {
    assertEquals(32L << 30, CalibrationOptions.tlbProbeBytes(126L << 30));
    assertEquals(64L << 30, CalibrationOptions.tlbProbeBytes(1L << 40), "at most 64 GiB");
    assertEquals(0, CalibrationOptions.tlbProbeBytes(4L << 30), "no room beyond the probe buffers");
    assertThrows(IllegalArgumentException.class,
        () -> new CalibrationOptions(MachineProfile.MODE_FULL, 1 << 20, 1 << 20, 1 << 20, 1, true, 3L << 30));
  }

  @Test
  void bothQuickModesAreQuickAndFullIsNot() {
    for (String mode : List.of(MachineProfile.MODE_QUICK, MachineProfile.MODE_FIRST_USE, MachineProfile.MODE_FULL)) {
      MachineProfile p = new MachineProfile(MachineProfile.FORMAT_VERSION, "t", "h", 1, 1.0, null, "no GPU", Map.of(),
          Map.of(), null, List.of(), null, null, null, null, null, mode);
      assertEquals(!mode.equals(MachineProfile.MODE_FULL), p.quick(), mode);
    }
  }

  @Test
  void writingReplacesTheFileAndLeavesNoTemporaryOne(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("machine-profile.json");
    Files.writeString(file, "{\"formatVersion\": 0}");
    MachineProfile p = MachineProfiles.assumed(Optional.empty());
    p.write(file);
    assertEquals(p, MachineProfile.read(file));
    try (var files = Files.list(dir)) {
      assertEquals(List.of(file), files.toList());
    }
    // A file where the directory should be: the write fails and leaves nothing behind.
    Path blocked = dir.resolve("machine-profile.json").resolve("nested.json");
    assertThrows(IOException.class, () -> p.write(blocked));
    assertEquals(p, MachineProfile.read(file));
  }

  @Test
  void missingOrStaleProfileIsAClearError(@TempDir Path dir) throws IOException {
    var missing = assertThrows(IOException.class, () -> MachineProfile.read(dir.resolve("none.json")));
    assertTrue(missing.getMessage().contains("spillway calibrate"), missing.getMessage());
    Files.writeString(dir.resolve("old.json"), "{\"formatVersion\": 0}");
    var stale = assertThrows(IOException.class, () -> MachineProfile.read(dir.resolve("old.json")));
    assertTrue(stale.getMessage().contains("format 0"), stale.getMessage());
    Files.writeString(dir.resolve("bad.json"), "{not json");
    var bad = assertThrows(IOException.class, () -> MachineProfile.read(dir.resolve("bad.json")));
    assertTrue(bad.getMessage().contains("not valid"), bad.getMessage());
  }

  @Test
  void probeSizesAreValidated() {
    assertThrows(IllegalArgumentException.class,
        () -> new CalibrationOptions(MachineProfile.MODE_QUICK, 1 << 20, 3 << 20, 1 << 20, 1, true));
    assertThrows(IllegalArgumentException.class, () -> new CalibrationOptions(" ", 1 << 20, 1 << 20, 1 << 20, 1, true));
  }
}
