package org.spillway.gpu.transfer;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.HostMemoryKind;

/**
 * The pull methods (zero-copy, UM migration, coherence): nothing is moved ahead of time; the kernel
 * dereferences host or managed memory and the hardware or the fault handler brings the bytes.
 */
final class DirectMover implements ChunkMover {
  private final CudaDevice device;
  private final boolean mapped;
  /** Mapped device address per host column address, for the columns begun since the last reset. */
  private final Map<Long, Long> bases = new HashMap<>();

  /** {@code mapped}: translate pinned host addresses into their mapped device addresses (zero-copy). */
  DirectMover(CudaDevice device, boolean mapped) {
    this.device = device;
    this.mapped = mapped;
  }

  @Override
  public void reserve(int columns, long bytes) {}

  /** A new run: forget the mappings of the last one (its memory may have been freed since). */
  @Override
  public void reset() {
    bases.clear();
  }

  @Override
  public void begin(List<HostColumn> columns) {
    for (HostColumn c : columns) {
      long host = c.address();
      bases.computeIfAbsent(host, h -> mapped ? HostMemoryKind.mappedDeviceAddress(device, h) : h);
    }
  }

  @Override
  public long[] move(int slot, List<HostColumn> columns, long firstRow, long rows, CudaStream stream) {
    long[] addresses = new long[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      HostColumn column = columns.get(c);
      addresses[c] = bases.get(column.address()) + column.type().offset(firstRow);
    }
    return addresses;
  }

  @Override
  public void close() {}
}
