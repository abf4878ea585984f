package org.spillway.adapter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.spillway.gpu.SpillwayHome;
import org.spillway.gpu.calibrate.CalibrationOptions;
import org.spillway.gpu.calibrate.MachineProfiles;

import java.nio.file.Path;

/**
 * Tests never touch the user's ~/.spillway (a calibrated profile there changed plan costs, and a default data
 * directory there would be generated into): the build points {@code spillway.home} under target/ and hides
 * SPILLWAY_DATA_DIR, so every default location resolves inside the build; and it keeps a GPU machine from
 * calibrating on first use, which would make plans depend on that measurement.
 */
class HermeticHomeTest {
  private static final Path USER_HOME = Path.of(System.getProperty("user.home")).toAbsolutePath().normalize();

  @Test void homeUnderTestIsInsideTheBuildNotTheUsersHome() {
    Path home = SpillwayHome.directory().toAbsolutePath().normalize();
    assertFalse(home.equals(USER_HOME.resolve(".spillway")), home.toString());
    assertEquals("spillway-home", home.getFileName().toString());
    assertEquals("target", home.getParent().getFileName().toString());
  }

  @Test void defaultProfileAndDataDirectoryResolveUnderTheTestHome() {
    Path home = SpillwayHome.directory();
    assertNull(System.getenv("SPILLWAY_DATA_DIR"), "the build must hide SPILLWAY_DATA_DIR from tests");
    assertEquals(home.resolve("tpch-sf1"), DataDirOptions.defaultDataDir());
    assertEquals(home.resolve("machine-profile.json"), CalibrationOptions.defaultProfilePath());
  }

  @Test void aGpuMachineDoesNotCalibrateOnFirstUseUnderTest() {
    assertEquals("false", System.getProperty(MachineProfiles.ON_FIRST_USE_PROPERTY),
        "the build must keep tests on assumed or pinned profiles");
  }

  @Test void withoutThePropertyTheHomeIsTheUsersSpillwayDirectory() {
    String saved = System.clearProperty(SpillwayHome.PROPERTY);
    try {
      assertEquals(USER_HOME.resolve(".spillway"), SpillwayHome.directory().toAbsolutePath().normalize());
    } finally {
      assertTrue(saved != null);
      System.setProperty(SpillwayHome.PROPERTY, saved);
    }
  }
}
