package org.spillway.adapter;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.PinnedAllocationManager;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tests the choice of host memory: pinned with a GPU, pageable without, overridable by property. */
class HostMemorySetupTest {
  @AfterEach void clear() {
    System.clearProperty(HostMemorySetup.PROPERTY);
  }

  @Test void autoPinsExactlyWhenAGpuIsPresent() {
    boolean gpu = GpuRuntime.device().isPresent();
    assertEquals(gpu, new HostMemorySetup().allocationManager().isPresent());
  }

  @Test void propertyForcesTheChoice() {
    System.setProperty(HostMemorySetup.PROPERTY, "pageable");
    assertEquals(Optional.empty(), new HostMemorySetup().allocationManager());
    System.setProperty(HostMemorySetup.PROPERTY, "PINNED");
    assertEquals(Optional.of(PinnedAllocationManager.FACTORY), new HostMemorySetup().allocationManager());
  }

  @Test void badValueSaysWhatIsAllowed() {
    System.setProperty(HostMemorySetup.PROPERTY, "huge");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new HostMemorySetup().allocationManager());
    assertTrue(e.getMessage().contains("pinned, pageable or auto"), e.getMessage());
  }
}
