package org.spillway.gpu.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The kept blocks: exact sizes, the newest of a size first, the oldest given up beyond the capacity. */
class DeviceBlockPoolTest {
  @Test void aBlockIsTakenOnlyForItsExactSizeNewestFirst() {
    DeviceBlockPool pool = new DeviceBlockPool(1000);
    DevicePointer older = new DevicePointer();
    DevicePointer newer = new DevicePointer();
    DevicePointer other = new DevicePointer();
    assertEquals(List.of(), pool.put(older, 100));
    assertEquals(List.of(), pool.put(other, 200));
    assertEquals(List.of(), pool.put(newer, 100));
    assertEquals(400, pool.bytes());
    assertNull(pool.take(101));
    assertSame(newer, pool.take(100));
    assertSame(older, pool.take(100));
    assertNull(pool.take(100));
    assertSame(other, pool.take(200));
    assertEquals(0, pool.bytes());
  }

  @Test void theOldestBlocksGoBeyondTheCapacityAndATooLargeOneAtOnce() {
    DeviceBlockPool pool = new DeviceBlockPool(300);
    DevicePointer first = new DevicePointer();
    DevicePointer second = new DevicePointer();
    DevicePointer third = new DevicePointer();
    pool.put(first, 150);
    pool.put(second, 100);
    assertEquals(List.of(first), pool.put(third, 100));
    assertEquals(200, pool.bytes());
    DevicePointer huge = new DevicePointer();
    assertEquals(List.of(huge), pool.put(huge, 301));
    assertEquals(List.of(second), pool.evictTo(150));
    assertEquals(List.of(third), pool.evictTo(0));
    assertEquals(0, pool.bytes());
    assertEquals(List.of(huge), new DeviceBlockPool(0).put(huge, 1));
    assertThrows(IllegalArgumentException.class, () -> new DeviceBlockPool(-1));
  }
}
