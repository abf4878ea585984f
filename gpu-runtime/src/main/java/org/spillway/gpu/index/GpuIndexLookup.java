package org.spillway.gpu.index;

import java.util.ArrayList;
import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaKernel;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.HostMemoryKind;

/**
 * The GPU lookup of an index whose column and structure lie in pinned host memory (built from an allocator of
 * {@code ArrowAllocators.root(PINNED)}): the kernels read both over the link zero-copy, a cache line at a time,
 * as in Schmeißer, Lutz and Markl's out-of-core indexes; the probe keys and the rows they find are in GPU memory.
 * One kernel module per kind under {@code src/main/cuda/index/}; they answer as the CPU lookups do.
 */
public final class GpuIndexLookup {
  private static final int BLOCK_THREADS = 256;
  /** Blocks per multiprocessor: enough warps in flight to cover the link's latency. */
  private static final int BLOCKS_PER_SM = 8;

  private final CudaKernel kernel;
  private final List<Object> structure;
  private final int maxBlocks;

  /** Prepares the lookup of {@code index} on {@code device}; its column and buffer must be pinned. */
  public GpuIndexLookup(CudaDevice device, SortedKeyIndex index) {
    SortedKeyColumn column = index.column();
    structure = new ArrayList<>(List.of(new DevicePointer(mapped(device, column.address(), column.rows(),
        "column")), column.rows(), column.width() == Long.BYTES ? 1 : 0));
    String[] moduleAndKernel = switch (index.kind()) {
      case BINARY_SEARCH -> new String[] {"index/binary_search_index", "binary_search_lookup"};
      case BTREE -> new String[] {"index/b_plus_tree", "b_plus_tree_lookup"};
      case HARMONIA -> new String[] {"index/harmonia", "harmonia_lookup"};
      case RADIXSPLINE -> new String[] {"index/radix_spline", "radix_spline_lookup"};
    };
    Object[] own = switch (index.kind()) {
      case BINARY_SEARCH -> new Object[0];
      case BTREE -> ((BPlusTree) index).kernelArguments(
          mapped(device, ((BPlusTree) index).structureAddress(), index.sizeBytes(), "B+-tree"));
      case HARMONIA -> ((Harmonia) index).kernelArguments(
          mapped(device, ((Harmonia) index).structureAddress(), index.sizeBytes(), "Harmonia"));
      case RADIXSPLINE -> ((RadixSpline) index).kernelArguments(
          mapped(device, ((RadixSpline) index).structureAddress(), index.sizeBytes(), "RadixSpline"));
    };
    structure.addAll(List.of(own));
    kernel = device.module(moduleAndKernel[0]).kernel(moduleAndKernel[1]);
    maxBlocks = device.multiprocessors() * BLOCKS_PER_SM;
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

  /** Looks up {@code count} keys at {@code probes} into the rows at {@code rows} (-1 for a miss), on {@code stream}. */
  public void lookup(DevicePointer probes, long count, DevicePointer rows, CudaStream stream) {
    if (count == 0) {
      return;
    }
    int blocks = (int) Math.max(1, Math.min(maxBlocks, (count + BLOCK_THREADS - 1) / BLOCK_THREADS));
    List<Object> arguments = new ArrayList<>(structure);
    arguments.add(probes);
    arguments.add(count);
    arguments.add(rows);
    kernel.launch(blocks, BLOCK_THREADS, stream, arguments.toArray());
  }
}
