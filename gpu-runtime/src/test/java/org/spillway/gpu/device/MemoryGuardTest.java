package org.spillway.gpu.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MemoryGuardTest {
  @AfterEach void clearLimit() {
    System.clearProperty(MemoryGuard.LIMIT_PROPERTY);
  }

  @Test void anAllocationBeyondTheLimitFailsWithSqlState53200() {
    System.setProperty(MemoryGuard.LIMIT_PROPERTY, "1m");
    MemoryGuard.require("the join of a and b", 1 << 20);
    SpillwayResourceException e = assertThrows(SpillwayResourceException.class,
        () -> MemoryGuard.require("the join of a and b", (1 << 20) + 1));
    assertEquals("53200", e.sqlState());
    assertTrue(e.getMessage().startsWith("out of memory: the join of a and b needs 1048577 bytes, 1048576 available"),
        e.getMessage());
  }

  @Test void withoutALimitTheHeapsFreeRoomCounts() {
    long available = MemoryGuard.available();
    assertTrue(available > 0 && available <= Runtime.getRuntime().maxMemory(), "available " + available);
    long beyondTheHeap = Runtime.getRuntime().maxMemory() + 1;
    assertThrows(SpillwayResourceException.class, () -> MemoryGuard.require("everything", beyondTheHeap));
  }

  @Test void limitsTakeBinarySuffixes() {
    assertEquals(512L << 20, MemoryGuard.parseBytes("512m"));
    assertEquals(2L << 30, MemoryGuard.parseBytes("2G"));
    assertEquals(1000, MemoryGuard.parseBytes("1000"));
    assertThrows(IllegalArgumentException.class, () -> MemoryGuard.parseBytes("lots"));
  }
}
