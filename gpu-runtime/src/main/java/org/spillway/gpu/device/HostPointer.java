package org.spillway.gpu.device;

import jcuda.Pointer;

/** A JCuda pointer to a raw host address (an ArrowBuf's memory, a pinned or pageable buffer). */
public final class HostPointer extends Pointer {
  /** An empty pointer for calls that fill it in, such as cuMemHostAlloc. */
  public HostPointer() {
    super();
  }

  public HostPointer(long address) {
    super(address);
  }

  /** The address this pointer designates (base plus byte offset). */
  public long address() {
    return getNativePointer() + getByteOffset();
  }
}
