package org.spillway.gpu.index;

import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.util.ArrayList;
import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.GpuMemoryException;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.device.HostPointer;

/**
 * The GPU lookup of an index whose column lies in pinned host memory (built from an allocator of
 * {@code ArrowAllocators.root(PINNED)}): the kernels read the column over the link zero-copy, a cache line at a time,
 * as in Schmeißer, Lutz and Markl's out-of-core indexes; the probe keys and the rows they find are in GPU memory.
 * The index's own structure (RadixSpline's radix table and spline points, the inner levels of B+tree and Harmonia)
 * is copied into GPU memory up to {@link #DEVICE_STRUCTURE_BYTES}, so that only the column's lines cross the link per
 * lookup; a larger one, or one GPU memory has no room for, is read over the link as well and must be pinned too. One
 * kernel module per kind under {@code src/main/cuda/index/}; they answer as the CPU lookups do. Closing frees the
 * copy.
 */
public final class GpuIndexLookup implements AutoCloseable {
  /**
   * The largest index structure copied into GPU memory: RadixSpline's is a few MiB whatever the column, a B+tree's
   * inner levels over 64 GiB of keys about 130 MiB; Harmonia's lowest inner level holds every 32nd key (2 GiB over
   * 64 GiB of keys), which stays in host memory.
   */
  public static final long DEVICE_STRUCTURE_BYTES = 512L << 20;
  private static final int BLOCK_THREADS = 256;
  /** Blocks per multiprocessor: enough warps in flight to cover the link's latency. */
  private static final int BLOCKS_PER_SM = 8;

  private final CudaKernel kernel;
  private final List<Object> structure;
  private final int maxBlocks;
  private final DeviceBuffer onDevice;

  /** Prepares the lookup of {@code index} on {@code device}; its column must be pinned. */
  public GpuIndexLookup(CudaDevice device, SortedKeyIndex index) {
    this(device, index, DEVICE_STRUCTURE_BYTES);
  }

  /** As {@link #GpuIndexLookup(CudaDevice, SortedKeyIndex)}, copying a structure of up to {@code deviceBytes}. */
  GpuIndexLookup(CudaDevice device, SortedKeyIndex index, long deviceBytes) {
    SortedKeyColumn column = index.column();
    structure = new ArrayList<>(List.of(new DevicePointer(mapped(device, column.address(), column.rows(),
        "column")), column.rows(), column.width() == Long.BYTES ? 1 : 0));
    String[] moduleAndKernel = switch (index.kind()) {
      case BINARY_SEARCH -> new String[] {"index/binary_search_index", "binary_search_lookup"};
      case BTREE -> new String[] {"index/b_plus_tree", "b_plus_tree_lookup"};
      case HARMONIA -> new String[] {"index/harmonia", "harmonia_lookup"};
      case RADIXSPLINE -> new String[] {"index/radix_spline", "radix_spline_lookup"};
    };
    long host = switch (index.kind()) {
      case BINARY_SEARCH -> 0;
      case BTREE -> ((BPlusTree) index).structureAddress();
      case HARMONIA -> ((Harmonia) index).structureAddress();
      case RADIXSPLINE -> ((RadixSpline) index).structureAddress();
    };
    String name = index.kind().toString();
    onDevice = index.sizeBytes() <= deviceBytes ? copied(device, host, index.sizeBytes(), name) : null;
    try {
      long base = onDevice != null ? onDevice.address() : mapped(device, host, index.sizeBytes(), name);
      Object[] own = switch (index.kind()) {
        case BINARY_SEARCH -> new Object[0];
        case BTREE -> ((BPlusTree) index).kernelArguments(base);
        case HARMONIA -> ((Harmonia) index).kernelArguments(base);
        case RADIXSPLINE -> ((RadixSpline) index).kernelArguments(base);
      };
      structure.addAll(List.of(own));
      kernel = device.module(moduleAndKernel[0]).kernel(moduleAndKernel[1]);
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
    // no more blocks than stay resident: they loop over the keys, so a second wave would only idle the first's
    maxBlocks = device.multiprocessors()
        * Math.min(BLOCKS_PER_SM, kernel.residentBlocksPerMultiprocessor(BLOCK_THREADS, 0));
  }

  /**
   * A copy in GPU memory of the {@code bytes} of structure at {@code host}, or null where there is none to copy or
   * GPU memory has no room for it (the lookups then read it over the link).
   */
  private static DeviceBuffer copied(CudaDevice device, long host, long bytes, String name) {
    if (bytes == 0) {
      return null;
    }
    DeviceBuffer buffer;
    try {
      buffer = device.allocator().allocate(bytes, name + " index structure");
    } catch (GpuMemoryException e) {
      return null;
    }
    try {
      device.makeCurrent();
      CudaException.check(cuMemcpyHtoD(buffer.pointer(), new HostPointer(host), bytes),
          "cuMemcpyHtoD(" + name + " index structure, " + bytes + " bytes)");
      return buffer;
    } catch (RuntimeException | Error e) {
      buffer.close();
      throw e;
    }
  }

  /** Where the GPU sees pinned host memory at {@code address}; any other memory is an error. */
  private static long mapped(CudaDevice device, long address, long size, String what) {
    if (size == 0) {
      return 0;
    }
    HostMemoryKind kind = HostMemoryKind.of(device, address);
    if (kind != HostMemoryKind.PINNED) {
      throw new IllegalArgumentException("the GPU reads an index's " + what + " zero-copy, so it must be in pinned"
          + " host memory (ArrowAllocators.root(PINNED)), but it is " + kind);
    }
    return HostMemoryKind.mappedDeviceAddress(device, address);
  }

  /** Whether the index's structure was copied into GPU memory (false: read over the link, or there is none). */
  public boolean structureOnDevice() {
    return onDevice != null;
  }

  /** Looks up {@code count} keys at {@code probes} into the rows at {@code rows} (-1 for a miss), on {@code stream}. */
  public void lookup(DevicePointer probes, long count, DevicePointer rows, CudaStream stream) {
    launch(probes, count, new DevicePointer(0), 0, 0, rows, stream);
  }

  /**
   * Looks up the keys of partitions {@code firstPartition} to {@code endPartition - 1} of a radix-partitioned
   * window of {@code count} keys at {@code probes}, into their slots of {@code rows}: {@code partitionEnds} holds,
   * in GPU memory, the slot after each partition's last key (written by an earlier kernel on {@code stream}, so the
   * host needs no copy of it). One slice of a window's lookups (the windowed join's {@code TranslationSlices}).
   */
  public void lookupPartitions(DevicePointer probes, long count, DevicePointer partitionEnds, int firstPartition,
      int endPartition, DevicePointer rows, CudaStream stream) {
    if (firstPartition < 0 || endPartition < firstPartition) {
      throw new IllegalArgumentException("partitions [" + firstPartition + ", " + endPartition + ") are no range");
    }
    launch(probes, count, partitionEnds, firstPartition, endPartition, rows, stream);
  }

  /** The kernel over the slots of {@code count} probe keys that the partition range picks (all: a null pointer). */
  private void launch(DevicePointer probes, long count, DevicePointer partitionEnds, int firstPartition,
      int endPartition, DevicePointer rows, CudaStream stream) {
    if (count == 0) {
      return;
    }
    // a slice's size is known on the GPU only: resident blocks at most, and those without keys return at once
    int blocks = (int) Math.max(1, Math.min(maxBlocks, (count + BLOCK_THREADS - 1) / BLOCK_THREADS));
    List<Object> arguments = new ArrayList<>(structure);
    arguments.add(probes);
    arguments.add(count);
    arguments.add(partitionEnds);
    arguments.add(firstPartition);
    arguments.add(endPartition);
    arguments.add(rows);
    kernel.launch(blocks, BLOCK_THREADS, stream, arguments.toArray());
  }

  /** Frees the structure's copy in GPU memory; the caller has finished every lookup it enqueued. */
  @Override
  public void close() {
    if (onDevice != null) {
      onDevice.close();
    }
  }
}
