package org.spillway.gpu.transfer;

import java.util.List;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.cuda.CudaStream;
import org.spillway.gpu.memory.HostMemoryKind;

/**
 * The pull methods (zero-copy, UM migration, coherence): nothing is moved ahead of time; the kernel
 * dereferences host or managed memory and the hardware or the fault handler brings the bytes.
 */
final class DirectMover implements ChunkMover {
  private final CudaDevice device;
  private final boolean mapped;
  private long[] bases = new long[0];

  /** {@code mapped}: translate pinned host addresses into their mapped device addresses (zero-copy). */
  DirectMover(CudaDevice device, boolean mapped) {
    this.device = device;
    this.mapped = mapped;
  }

  @Override
  public void begin(List<HostColumn> columns, long chunkRows) {
    bases = new long[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      long host = columns.get(c).address();
      bases[c] = mapped ? HostMemoryKind.mappedDeviceAddress(device, host) : host;
    }
  }

  @Override
  public long[] move(int slot, List<HostColumn> columns, long firstRow, long rows, CudaStream stream) {
    long[] addresses = new long[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      addresses[c] = bases[c] + firstRow * columns.get(c).type().width();
    }
    return addresses;
  }

  @Override
  public void close() {}
}
