package org.spillway.gpu.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.bench.RandomFill;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.transfer.ColumnType;

/** The link_probe kernels against the CPU: what the reads read (by checksum) and what the writes wrote. */
@GpuTest
class LinkProbeGpuTest {
  private static final long BYTES = 1 << 20;

  @Test
  void readsReadExactlyTheBytesTheCpuPredicts() {
    CudaDevice device = GpuRuntime.requireDevice();
    try (HostBuffer host = device.pinnedAllocator().allocate(BYTES);
         LinkProbe probe = new LinkProbe(device)) {
      RandomFill.fill(host.address(), ColumnType.INT64, BYTES / 8, System.nanoTime());
      long mapped = HostMemoryKind.mappedDeviceAddress(device, host.address());
      for (int g : new int[] {4, 8, 16, 64, 512}) {
        long slots = BYTES / g;
        for (boolean random : new boolean[] {false, true}) {
          long accesses = random ? 100_003 : slots;  // sequential: each granule once; random: a ragged count
          probe.readSeconds(mapped, BYTES, g, random, accesses, 1);
          assertEquals(expectedChecksum(host.address(), slots, g, random, accesses), probe.lastReadChecksum(),
              (random ? "random " : "sequential ") + g + " B");
        }
      }
    }
  }

  @Test
  void writesReachHostMemory() {
    CudaDevice device = GpuRuntime.requireDevice();
    try (HostBuffer host = device.pinnedAllocator().allocate(BYTES);
         LinkProbe probe = new LinkProbe(device)) {
      MemoryUtil.setMemory(host.address(), BYTES, (byte) 0x5A);
      long mapped = HostMemoryKind.mappedDeviceAddress(device, host.address());
      assertTrue(probe.writeSeconds(mapped, BYTES, 1) > 0);
      int seed = 2;  // the warm-up launch writes with seed 1, the timed one with seed 2
      for (long i = 0; i < BYTES / 16; i++) {
        int v = (int) i ^ seed;
        for (int lane = 0; lane < 4; lane++) {
          assertEquals(v + lane, MemoryUtil.getInt(host.address() + 16 * i + 4L * lane), "word " + (4 * i + lane));
        }
      }
    }
  }

  /** The kernel's checksum computed on the CPU: XOR of every granule read, as link_probe.cu combines it. */
  private static long expectedChecksum(long base, long slots, int g, boolean random, long accesses) {
    long x = 0;
    for (long a = 0; a < accesses; a++) {
      long slot = (random ? mix(a) : a) & (slots - 1);
      long p = base + slot * g;
      if (g == 4) {
        x ^= MemoryUtil.getInt(p) & 0xFFFFFFFFL;
      } else if (g == 8) {
        x ^= MemoryUtil.getLong(p);
      } else {
        for (long b = 0; b < g; b += 16) {
          x ^= word(p + b) ^ word(p + b + 8);
        }
      }
    }
    return x;
  }

  /** Two little-endian 32-bit words as the kernel packs them: (first << 32) | second. */
  private static long word(long p) {
    return (MemoryUtil.getInt(p) & 0xFFFFFFFFL) << 32 | (MemoryUtil.getInt(p + 4) & 0xFFFFFFFFL);
  }

  /** splitmix64's finalizer, as in link_probe.cu. */
  private static long mix(long x) {
    x += 0x9E3779B97F4A7C15L;
    x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
    return x ^ (x >>> 31);
  }
}
