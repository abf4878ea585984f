package org.spillway.gpu.device;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Runs everywhere: the runtime either has a device or says why in one line, and never throws. */
class GpuRuntimeTest {
  @Test
  void deviceOrOneLineReason() {
    if (GpuRuntime.device().isPresent()) {
      assertNull(GpuRuntime.unavailableReason());
    } else {
      String reason = GpuRuntime.unavailableReason();
      assertFalse(reason == null || reason.isBlank());
      assertFalse(reason.contains("\n"), reason);
      var e = assertThrows(IllegalStateException.class, GpuRuntime::requireDevice);
      assertTrue(e.getMessage().contains(reason));
    }
  }
}
