package org.spillway.gpu.device;

import java.util.ArrayList;
import java.util.List;

/**
 * Device blocks freed by their buffers and kept for the next allocation of the same size, the oldest handed back
 * first once more than {@code capacity} bytes are kept. A query run again allocates the same sizes again (its join
 * tables, their images, the scratch of its passes): taken from here they cost neither cuMemAlloc's mapping nor
 * cuMemFree's unmapping. Exact sizes only: a block never holds more than its buffer says.
 */
final class DeviceBlockPool {
  private record Block(DevicePointer pointer, long bytes) {}

  private final long capacity;
  /** The oldest first. */
  private final List<Block> blocks = new ArrayList<>();
  private long bytes;

  DeviceBlockPool(long capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("a device block pool of " + capacity + " bytes");
    }
    this.capacity = capacity;
  }

  long capacity() {
    return capacity;
  }

  synchronized long bytes() {
    return bytes;
  }

  /** A kept block of exactly {@code size} bytes (the newest), or null. */
  synchronized DevicePointer take(long size) {
    for (int i = blocks.size() - 1; i >= 0; i--) {
      if (blocks.get(i).bytes() == size) {
        bytes -= size;
        return blocks.remove(i).pointer();
      }
    }
    return null;
  }

  /** Keeps a freed block; returns the blocks to free now: the oldest beyond the capacity, or this one if too large. */
  synchronized List<DevicePointer> put(DevicePointer pointer, long size) {
    if (size > capacity) {
      return List.of(pointer);
    }
    blocks.add(new Block(pointer, size));
    bytes += size;
    return evictTo(capacity);
  }

  /** Gives up the oldest blocks until at most {@code limit} bytes are kept; returns them, for the caller to free. */
  synchronized List<DevicePointer> evictTo(long limit) {
    List<DevicePointer> evicted = new ArrayList<>();
    while (bytes > limit && !blocks.isEmpty()) {
      Block oldest = blocks.remove(0);
      bytes -= oldest.bytes();
      evicted.add(oldest.pointer());
    }
    return evicted;
  }
}
