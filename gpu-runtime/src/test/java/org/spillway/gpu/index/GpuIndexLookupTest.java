package org.spillway.gpu.index;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Consumer;
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
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.index.SortedKeyColumns.Shape;

/**
 * The GPU lookups, reading column and index from pinned host memory, answer as the CPU lookups do, over all probe keys
 * or over the slots of a range of partitions.
 */
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

  /**
   * A launch over a range of partitions looks up exactly their slots: those of partitions first .. end-1 by the
   * partition ends in GPU memory, and leaves every other slot as it was; ranges that tile the partitions answer as
   * one launch over all keys.
   */
  @ParameterizedTest
  @EnumSource(IndexKind.class)
  void aPartitionRangeLooksUpItsSlotsOnly(IndexKind kind) {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    CudaDevice device = GpuRuntime.requireDevice();
    long[] keys = SortedKeyColumns.keys(Shape.GAPS, 20_000, false, random);
    long[] probes = SortedKeyColumns.probes(keys, random);
    int[] ends = {0, 37, 37, 1000, probes.length - 5};  // an empty partition, rejects after the last
    try (BufferAllocator pinned = ArrowAllocators.root(HostMemoryKind.PINNED);
         CudaStream stream = device.newStream();
         ArrowBuf buf = SortedKeyColumns.write(pinned, keys, false);
         SortedKeyIndex index = kind.build(SortedKeyColumns.column(buf, keys.length, false), pinned, 2);
         GpuIndexLookup lookup = new GpuIndexLookup(device, index)) {
      long[] expected = new long[probes.length];
      index.lookup(probes, probes.length, expected);
      for (int[] range : new int[][] {{0, 1}, {1, 2}, {2, 4}, {3, 5}, {0, 5}, {4, 5}}) {
        long[] rows = gpuLookup(device, stream, probes, found -> lookup.lookupPartitions(found.keys(),
            probes.length, found.ends(ends), range[0], range[1], found.rows(), stream));
        int from = range[0] == 0 ? 0 : ends[range[0] - 1];
        int to = ends[range[1] - 1];
        for (int i = 0; i < probes.length; i++) {
          assertEquals(i >= from && i < to ? expected[i] : UNTOUCHED, rows[i], kind + " partitions " + range[0]
              + ".." + (range[1] - 1) + ", slot " + i + " seed=" + seed);
        }
      }
      long[] tiled = gpuLookup(device, stream, probes, found -> {
        for (int p = 0; p < ends.length; p++) {
          lookup.lookupPartitions(found.keys(), probes.length, found.ends(ends), p, p + 1, found.rows(), stream);
        }
        lookup.lookupPartitions(found.keys(), probes.length, found.ends(ends), 0, 0, found.rows(), stream);
      });
      for (int i = 0; i < ends[ends.length - 1]; i++) {
        assertEquals(expected[i], tiled[i], kind + " tiled, slot " + i + " seed=" + seed);
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

  /** What a slot of the rows holds before a launch writes it. */
  private static final long UNTOUCHED = -7;

  /** The probe keys, the rows (each {@link #UNTOUCHED}) and partition ends of a launch, in GPU memory. */
  private interface Slots {
    DevicePointer keys();

    DevicePointer rows();

    /** {@code ends} copied into GPU memory (once per call). */
    DevicePointer ends(int[] ends);
  }

  /** The rows {@code launch} leaves, from probe keys {@code probes} and rows of {@link #UNTOUCHED} in GPU memory. */
  private static long[] gpuLookup(CudaDevice device, CudaStream stream, long[] probes,
      Consumer<Slots> launch) {
    long bytes = (long) probes.length * Long.BYTES;
    long[] rows = new long[probes.length];
    Arrays.fill(rows, UNTOUCHED);
    try (DeviceBuffer keys = device.allocator().allocate(bytes, "probe keys");
         DeviceBuffer found = device.allocator().allocate(bytes, "rows found");
         DeviceBuffer ends = device.allocator().allocate(64L * Integer.BYTES, "partition ends")) {
      device.makeCurrent();
      CudaException.check(cuMemcpyHtoD(keys.pointer(), Pointer.to(probes), bytes), "cuMemcpyHtoD(probe keys)");
      CudaException.check(cuMemcpyHtoD(found.pointer(), Pointer.to(rows), bytes), "cuMemcpyHtoD(rows)");
      launch.accept(new Slots() {
        @Override
        public DevicePointer keys() {
          return keys.pointer();
        }

        @Override
        public DevicePointer rows() {
          return found.pointer();
        }

        @Override
        public DevicePointer ends(int[] values) {
          CudaException.check(cuMemcpyHtoD(ends.pointer(), Pointer.to(values), (long) values.length * Integer.BYTES),
              "cuMemcpyHtoD(partition ends)");
          return ends.pointer();
        }
      });
      stream.synchronize();
      CudaException.check(cuMemcpyDtoH(Pointer.to(rows), found.pointer(), bytes), "cuMemcpyDtoH(rows)");
    }
    return rows;
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
