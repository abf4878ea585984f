package org.spillway.gpu.device;

/** Device (or managed) memory from a {@link DeviceAllocator}; closing it returns the bytes to the budget. */
public final class DeviceBuffer implements AutoCloseable {
  private final DeviceAllocator owner;
  private final DevicePointer pointer;
  private final long bytes;
  private final boolean managed;
  private final String purpose;
  private boolean closed;

  DeviceBuffer(DeviceAllocator owner, DevicePointer pointer, long bytes, boolean managed, String purpose) {
    this.owner = owner;
    this.pointer = pointer;
    this.bytes = bytes;
    this.managed = managed;
    this.purpose = purpose;
  }

  public long address() {
    return pointer.address();
  }

  public DevicePointer pointer() {
    return pointer;
  }

  /** A pointer {@code offset} bytes into this buffer. */
  public DevicePointer pointer(long offset) {
    if (offset < 0 || offset > bytes) {
      throw new IndexOutOfBoundsException("offset " + offset + " outside device buffer of " + bytes + " bytes");
    }
    return new DevicePointer(pointer.address() + offset);
  }

  public long bytes() {
    return bytes;
  }

  /** True for cuMemAllocManaged memory, which the host may also read and write. */
  public boolean managed() {
    return managed;
  }

  public String purpose() {
    return purpose;
  }

  public synchronized boolean isClosed() {
    return closed;
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      owner.release(this);
    }
  }
}
