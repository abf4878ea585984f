package org.spillway.gpu.device;

/** Pinned, mapped host memory from a {@link PinnedHostAllocator}; closing it frees and un-counts it. */
public final class HostBuffer implements AutoCloseable {
  private final PinnedHostAllocator owner;
  private final HostPointer pointer;
  private final long bytes;
  private final long mallocAddress;
  private boolean closed;

  HostBuffer(PinnedHostAllocator owner, HostPointer pointer, long bytes, long mallocAddress) {
    this.owner = owner;
    this.pointer = pointer;
    this.bytes = bytes;
    this.mallocAddress = mallocAddress;
  }

  /** The malloc'ed block behind a registered buffer, or 0 for cuMemHostAlloc memory. */
  long mallocAddress() {
    return mallocAddress;
  }

  public long address() {
    return pointer.address();
  }

  public HostPointer pointer() {
    return pointer;
  }

  public long bytes() {
    return bytes;
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      owner.release(this);
    }
  }
}
