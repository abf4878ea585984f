package org.spillway.gpu.index;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import jcuda.Pointer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.index.SortedKeyColumns.Shape;

/** The GPU lookups, reading column and index from pinned host memory, answer as the CPU lookups do. */
@GpuTest
class GpuIndexLookupTest {
  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void answersAsTheCpuLookups(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    CudaDevice device = GpuRuntime.requireDevice();
    try (BufferAllocator pinned = ArrowAllocators.root(HostMemoryKind.PINNED);
         CudaStream stream = device.newStream()) {
      for (boolean ints : new boolean[] {false, true}) {
        for (Shape shape : Shape.values()) {
          for (int rows : new int[] {0, 1, 33, 5000, 150_000}) {
            long[] keys = SortedKeyColumns.keys(shape, rows, ints, random);
            long[] probes = SortedKeyColumns.probes(keys, random);
            try (ArrowBuf buf = SortedKeyColumns.write(pinned, keys, ints);
                 SortedKeyIndex index = kind.build(SortedKeyColumns.column(buf, keys.length, ints), pinned, 2)) {
              long[] expected = new long[probes.length];
              index.lookup(probes, probes.length, expected);
              // the structure in GPU memory (the default) and read over the link: the same answers
              for (long deviceBytes : new long[] {GpuIndexLookup.DEVICE_STRUCTURE_BYTES, 0}) {
                long before = device.allocator().allocatedBytes();
                try (GpuIndexLookup lookup = new GpuIndexLookup(device, index, deviceBytes)) {
                  assertEquals(deviceBytes > 0 && index.sizeBytes() > 0, lookup.structureOnDevice());
                  assertArrayEquals(expected, gpuLookup(device, stream, lookup, probes), kind + " " + shape
                      + (ints ? " 4-byte" : " 8-byte") + " rows=" + keys.length + " structure on the GPU: "
                      + lookup.structureOnDevice() + " seed=" + seed);
                }
                assertEquals(before, device.allocator().allocatedBytes(), "closing frees the structure's copy");
              }
            }
          }
        }
      }
    }
  }

  @Test
  void refusesAnIndexInPageableMemory() {
    CudaDevice device = GpuRuntime.requireDevice();
    try (BufferAllocator pageable = new RootAllocator();
         ArrowBuf buf = SortedKeyColumns.write(pageable, new long[] {1, 2, 3}, false);
         SortedKeyIndex index = IndexKind.HARMONIA.build(SortedKeyColumns.column(buf, 3, false), pageable, 1)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new GpuIndexLookup(device, index));
      assertEquals("the GPU reads an index's column zero-copy, so it must be in pinned host memory"
          + " (ArrowAllocators.root(PINNED)), but it is PAGEABLE", e.getMessage());
    }
  }

  private static long[] gpuLookup(CudaDevice device, CudaStream stream, GpuIndexLookup lookup, long[] probes) {
    long bytes = (long) probes.length * Long.BYTES;
    long[] rows = new long[probes.length];
    try (DeviceBuffer keys = device.allocator().allocate(bytes, "probe keys");
         DeviceBuffer found = device.allocator().allocate(bytes, "rows found")) {
      device.makeCurrent();
      CudaException.check(cuMemcpyHtoD(keys.pointer(), Pointer.to(probes), bytes), "cuMemcpyHtoD(probe keys)");
      lookup.lookup(keys.pointer(), probes.length, found.pointer(), stream);
      stream.synchronize();
      CudaException.check(cuMemcpyDtoH(Pointer.to(rows), found.pointer(), bytes), "cuMemcpyDtoH(rows)");
    }
    return rows;
  }
}
