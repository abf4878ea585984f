package org.spillway.gpu.index;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Reads and searches sorted values in CPU memory, 4 or 8 bytes wide: the key column and the indexes' key regions
 * are off-heap, so every index searches them through here, one copy of the search for all.
 */
final class OffHeapSearch {
  private OffHeapSearch() {
  }

  /** Value {@code i} of the values at {@code address}, {@code 1 << shift} bytes each (shift 2 or 3), signed. */
  static long read(long address, int shift, long i) {
    return shift == 3 ? MemoryUtil.getLong(address + (i << 3)) : MemoryUtil.getInt(address + (i << 2));
  }

  /**
   * The first {@code i} in {@code from .. to-1} whose value is at least {@code key}, or {@code to} when none.
   * Branch-free halving (the comparison picks the next base without a jump), so a search costs the same
   * number of steps whatever the key and mispredicts nothing; the memory accesses are what it waits on.
   */
  static long lowerBound(long address, int shift, long from, long to, long key) {
    long base = from;
    long length = to - from;
    if (length <= 0) {
      return from;
    }
    while (length > 1) {
      long half = length >>> 1;
      base = read(address, shift, base + half - 1) < key ? base + half : base;
      length -= half;
    }
    return read(address, shift, base) < key ? base + 1 : base;
  }
}
