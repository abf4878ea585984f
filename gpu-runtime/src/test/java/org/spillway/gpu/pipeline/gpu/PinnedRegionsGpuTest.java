package org.spillway.gpu.pipeline.gpu;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import jcuda.Pointer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.vector.IndexedColumns.HeldValues;

/**
 * {@link PinnedRegions}: random batches of 4- and 8-byte columns in pinned memory (empty batches and batches of one row
 * among them) read back from GPU memory widened and packed as the host writes them (sign-extended; the high column above
 * the low one's unsigned bits); batches in pageable memory are not mapped; every device byte goes back.
 */
@GpuTest
class PinnedRegionsGpuTest {
  private final CudaDevice device = GpuRuntime.device().orElse(null);
  private BufferAllocator pinned;
  private final List<FieldVector> vectors = new ArrayList<>();

  @BeforeEach void open() {
    pinned = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
  }

  @AfterEach void close() {
    vectors.forEach(FieldVector::close);
    pinned.close();
  }

  @Test void widenedAndPackedAsTheHostWritesThem() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int[] batchRows = {random.nextInt(70_000), 0, 1, 65_536, 1 + random.nextInt(300_000)};
    int rows = java.util.Arrays.stream(batchRows).sum();
    long[] wide = new long[rows];
    long[] high = new long[rows];
    long[] low = new long[rows];
    List<HeldValues> wideHeld = new ArrayList<>();
    List<HeldValues> highHeld = new ArrayList<>();
    List<HeldValues> lowHeld = new ArrayList<>();
    int from = 0;
    for (int n : batchRows) {
      boolean eightBytes = random.nextBoolean();  // a column of mixed widths widens each batch as it is
      wideHeld.add(batch(random, n, eightBytes, wide, from));
      highHeld.add(batch(random, n, false, high, from));
      lowHeld.add(batch(random, n, false, low, from));
      from += n;
    }
    long[] packed = new long[rows];
    for (int r = 0; r < rows; r++) {
      packed[r] = high[r] << 32 | low[r] & 0xffffffffL;
    }
    GpuKernels kernels = new GpuKernels(device);
    long deviceBefore = device.allocator().allocatedBytes();
    String where = "seed " + seed + ", batches " + java.util.Arrays.toString(batchRows);
    assertTrue(PinnedRegions.packable(highHeld, lowHeld), where);
    assertFalse(PinnedRegions.packable(highHeld, lowHeld.subList(1, lowHeld.size())), "batches must pair up");
    try (DeviceBuffer widened = device.allocator().allocate(rows * 8L, "pinned regions test");
        DeviceBuffer keys = device.allocator().allocate(rows * 8L, "pinned regions test")) {
      long[] mappedWide = PinnedRegions.mapped(device, wideHeld);
      long[] mappedHigh = PinnedRegions.mapped(device, highHeld);
      long[] mappedLow = PinnedRegions.mapped(device, lowHeld);
      assertNotNull(mappedWide, where);
      CudaStream stream = GpuScratch.stream(device);
      try {
        PinnedRegions.widen(device, kernels, wideHeld, mappedWide, widened.address(), stream);
        PinnedRegions.pack(device, kernels, highHeld, mappedHigh, mappedLow, keys.address(), stream);
      } finally {
        stream.synchronize();
        GpuScratch.release(device, stream);
      }
      assertArrayEquals(wide, readBack(widened, rows), where + ": widened");
      assertArrayEquals(packed, readBack(keys, rows), where + ": packed");
    }
    assertEquals(deviceBefore, device.allocator().allocatedBytes(), "device memory back");
    long bytes = 0;
    for (HeldValues h : wideHeld) {
      bytes += h.width() * h.rows();
    }
    assertEquals(bytes, PinnedRegions.bytes(wideHeld), "each value crosses at its own width");
  }

  @Test void pageableBatchesAreNotMapped() {
    try (BufferAllocator pageable = new RootAllocator(); IntVector v = new IntVector("pageable", pageable)) {
      v.allocateNew(10);
      v.setValueCount(10);
      assertNull(PinnedRegions.mapped(device, List.of(new HeldValues(v.getDataBuffer(),
          v.getDataBuffer().memoryAddress(), 4, 10))));
    }
  }

  /** A batch of {@code n} random values of 8 or 4 bytes in pinned memory, which {@code expected} gets from {@code from}. */
  private HeldValues batch(Random random, int n, boolean eightBytes, long[] expected, int from) {
    BaseFixedWidthVector v = eightBytes ? new BigIntVector("l", pinned) : new IntVector("i", pinned);
    vectors.add(v);
    v.setInitialCapacity(Math.max(1, n));
    v.allocateNew();
    for (int r = 0; r < n; r++) {
      long x = eightBytes ? random.nextLong() : random.nextInt();
      if (eightBytes) {
        ((BigIntVector) v).set(r, x);
      } else {
        ((IntVector) v).set(r, (int) x);
      }
      expected[from + r] = x;
    }
    v.setValueCount(n);
    return new HeldValues(v.getDataBuffer(), v.getDataBuffer().memoryAddress(), eightBytes ? 8 : 4, n);
  }

  private static long[] readBack(DeviceBuffer buffer, int rows) {
    long[] back = new long[rows];
    if (rows > 0) {
      CudaException.check(cuMemcpyDtoH(Pointer.to(back), buffer.pointer(), rows * 8L), "cuMemcpyDtoH");
    }
    return back;
  }
}
