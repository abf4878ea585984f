package org.spillway.gpu.device;

import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.ReferenceManager;

/** An Arrow AllocationManager whose memory comes from CUDA (pinned or managed), freed when Arrow releases it. */
abstract class CudaAllocationManager extends AllocationManager {
  /** Arrow asks factories for an empty buffer; it owns no memory, so address 0 is never dereferenced. */
  static final ArrowBuf EMPTY = new ArrowBuf(ReferenceManager.NO_OP, null, 0, 0);

  private final long size;
  private final long address;
  private final AutoCloseable memory;

  CudaAllocationManager(BufferAllocator accountingAllocator, long size, long address, AutoCloseable memory) {
    super(accountingAllocator);
    this.size = size;
    this.address = address;
    this.memory = memory;
  }

  /** The device the factories allocate for; Arrow cannot be given pinned memory without one. */
  static CudaDevice requireDevice(String what) {
    return GpuRuntime.device().orElseThrow(() -> new OutOfMemoryException(
        what + " needs a CUDA device: " + GpuRuntime.unavailableReason()));
  }

  @Override
  public long getSize() {
    return size;
  }

  @Override
  protected long memoryAddress() {
    return address;
  }

  @Override
  protected void release0() {
    try {
      memory.close();
    } catch (Exception e) {
      throw new IllegalStateException("freeing " + size + " bytes of CUDA memory for Arrow failed", e);
    }
  }
}
