package org.spillway.gpu.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** Bulk copies land value for value where per-value puts and gets would (little-endian, offsets honoured). */
class HostCopyTest {
  @Test void putAndGetMatchPerValueAccess() {
    Random random = new Random();
    long[] values = random.longs(10_000).toArray();
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf buf = allocator.buffer(8L * values.length)) {
      HostCopy.put(buf.memoryAddress(), values, 100, 9_000);
      for (int i = 0; i < 9_000; i++) {
        assertEquals(values[100 + i], buf.getLong(8L * i), "value " + i);  // ArrowBuf reads little-endian
      }
      long[] back = new long[9_500];
      HostCopy.get(buf.memoryAddress() + 8, back, 500, 8_999);
      long[] expected = new long[9_500];
      System.arraycopy(values, 101, expected, 500, 8_999);
      assertArrayEquals(expected, back);
    }
  }

  /** Past one 8 MiB chunk the copy runs in chunks on all cores: every chunk must land at its place. */
  @Test void largeCopiesRoundTripThroughNativeMemory() {
    long[] values = new Random().longs(3 * (1 << 20) + 777).toArray();
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf buf = allocator.buffer(8L * values.length)) {
      HostCopy.put(buf.memoryAddress(), values, 0, values.length);
      assertEquals(values[values.length - 1], buf.getLong(8L * (values.length - 1)));
      assertEquals(values[1 << 20], buf.getLong(8L * (1 << 20)));
      long[] back = new long[values.length];
      HostCopy.get(buf.memoryAddress(), back, 0, values.length);
      assertArrayEquals(values, back);
    }
  }

  /** 32-bit values read in bulk equal per-value reads, negative ones included, from an offset into an offset. */
  @Test void intsMatchPerValueReads() {
    int[] values = new Random().ints(5_000).toArray();
    values[7] = Integer.MIN_VALUE;
    values[8] = -1;
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf buf = allocator.buffer(4L * values.length)) {
      for (int i = 0; i < values.length; i++) {
        buf.setInt(4L * i, values[i]);
      }
      int[] back = new int[5_100];
      HostCopy.getInts(buf.memoryAddress() + 4, back, 100, 4_999);
      int[] expected = new int[5_100];
      System.arraycopy(values, 1, expected, 100, 4_999);
      assertArrayEquals(expected, back);
    }
  }
}
