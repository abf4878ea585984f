package org.spillway.gpu.join.nopa;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;

import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostMemoryKind;

/**
 * The memory of one NOPA table: the GPU part of the entry array in device memory, the rest in mapped pinned
 * host memory (P1 Sec. 5.3's hybrid table, by software indirection: the kernels pick the base by slot), the
 * side list of build rows whose key is -1, and two counters (side-list cursor, duplicate flag).
 */
final class NopaHashTable implements AutoCloseable {
  private static final int COUNTER_BYTES = 16;

  private final NopaTableLayout layout;
  private final long sideCapacity;
  private long sideFilled;
  private final List<AutoCloseable> owned = new ArrayList<>();
  private DeviceBuffer gpuPart;
  private HostBuffer hostPart;
  private long hostPartDevice;
  private DeviceBuffer side;
  private DeviceBuffer counters;

  /** Allocates the table of {@code layout} with room for {@code minusOnes} side-list values. */
  NopaHashTable(CudaDevice device, NopaTableLayout layout, long minusOnes) {
    this.layout = layout;
    this.sideCapacity = minusOnes;
    this.sideFilled = minusOnes;
    try {
      if (layout.gpuBytes() > 0) {
        gpuPart = own(device.allocator().allocate(layout.gpuBytes(), "NOPA hash table (GPU part)"));
      }
      if (layout.hostBytes() > 0) {
        hostPart = own(device.pinnedAllocator().allocate(layout.hostBytes()));
        hostPartDevice = HostMemoryKind.mappedDeviceAddress(device, hostPart.address());
      }
      if (minusOnes > 0) {
        side = own(device.allocator().allocate(minusOnes * Long.BYTES, "NOPA side list of key -1"));
      }
      counters = own(device.allocator().allocate(COUNTER_BYTES, "NOPA table counters"));
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private <T extends AutoCloseable> T own(T resource) {
    owned.add(resource);
    return resource;
  }

  NopaTableLayout layout() {
    return layout;
  }

  /** Marks every slot empty and zeroes the counters, on {@code stream}. */
  void clear(NopaKernels kernels, CudaStream stream) {
    if (gpuPart != null) {
      fill(kernels, stream, gpuPart.address(), layout.gpuSlots() * 2);
    }
    if (hostPart != null) {
      fill(kernels, stream, hostPartDevice, (layout.slots() - layout.gpuSlots()) * 2);
    }
    CudaException.check(cuMemsetD8Async(counters.pointer(), (byte) 0, COUNTER_BYTES, stream.handle()),
        "cuMemsetD8Async(NOPA table counters)");
  }

  private static void fill(NopaKernels kernels, CudaStream stream, long address, long words) {
    kernels.fill().launch(kernels.blocks(words), NopaKernels.BLOCK_THREADS, stream, address, words);
  }

  /**
   * The table parameters of the build and probe kernels: GPU part, host part, GPU slots, slots, log2 slots,
   * minimum key, side list, its cursor and its length (the room while building, the values once filled).
   */
  List<Object> args() {
    return List.of(gpuPart == null ? 0L : gpuPart.address(), hostPart == null ? 0L : hostPartDevice,
        layout.gpuSlots(), layout.slots(), layout.logSlots(), layout.minKey(),
        side == null ? 0L : side.address(), counters.address(), sideFilled);
  }

  /** After the build: the side list holds the values of the first {@code count} build rows with key -1 only. */
  void sideFilled(long count) {
    if (count < 0 || count > sideCapacity) {
      throw new IllegalArgumentException("side list of " + sideCapacity + " values cannot hold " + count);
    }
    sideFilled = count;
  }

  /** Device address of the GPU part of the entry array (0 if the table has none). */
  long gpuAddress() {
    return gpuPart == null ? 0 : gpuPart.address();
  }

  /** Device address of the side list of key -1 (0 if empty). */
  long sideAddress() {
    return side == null ? 0 : side.address();
  }

  /** Room in the side list: values of build rows with key -1. */
  long sideCapacity() {
    return sideCapacity;
  }

  /** How many build rows with key -1 the build met (more than {@link #sideCapacity()} means some were dropped). */
  long sideCount() {
    long[] count = {0};
    CudaException.check(cuMemcpyDtoH(Pointer.to(count), counters.pointer(), Long.BYTES), "cuMemcpyDtoH(side cursor)");
    return count[0];
  }

  /** The duplicate flag the array table's build sets when a key comes twice. */
  DevicePointer duplicateFlag() {
    return counters.pointer(8);
  }

  /** Reads the duplicate flag; call once the build is done. */
  boolean duplicateFound() {
    int[] flag = {0};
    CudaException.check(cuMemcpyDtoH(Pointer.to(flag), duplicateFlag(), Integer.BYTES), "cuMemcpyDtoH(duplicate flag)");
    return flag[0] != 0;
  }

  @Override
  public void close() {
    closeAll(owned);
    owned.clear();
  }

  /** Closes every resource, even after one fails; rethrows the first failure with the later ones suppressed. */
  static void closeAll(List<? extends AutoCloseable> resources) {
    RuntimeException failure = null;
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e instanceof RuntimeException re ? re : new IllegalStateException(e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
