package org.spillway.gpu.index;

/**
 * A group of lookups run interleaved, the batch lookups' way of waiting for memory: each lookup is a chain of
 * dependent loads (every step of a binary search needs the one before), so one lookup after another waits for
 * each cache miss in turn. Searching the group in lockstep, as Psaropoulos et al. interleave the binary searches
 * of an index join (VLDB 2017), issues step {@code s} of all its searches before step {@code s+1} of any, and
 * their misses overlap. Holds the group's ranges and results; one per batch call, never shared between threads.
 */
final class LookupGroup {
  /** Lookups interleaved: enough independent misses to keep a core's miss buffers busy. */
  static final int SIZE = 16;

  /** The range each search covers, {@code from[g] .. to[g]-1}; after {@link #lowerBounds}, the result. */
  final long[] from = new long[SIZE];
  final long[] to = new long[SIZE];
  final long[] position = new long[SIZE];
  private final long[] length = new long[SIZE];

  /**
   * For every lookup {@code g < count}, the first index in {@code from[g] .. to[g]-1} whose value (at
   * {@code address}, {@code 1 << shift} bytes each) is at least {@code keys[first + g]}, or {@code to[g]}, into
   * {@code position[g]}. An empty range costs no read.
   */
  void lowerBounds(long address, int shift, long[] keys, int first, int count) {
    long longest = 0;
    for (int g = 0; g < count; g++) {
      position[g] = from[g];
      length[g] = Math.max(0, to[g] - from[g]);
      longest = Math.max(longest, length[g]);
    }
    while (longest > 1) {
      longest = 0;
      for (int g = 0; g < count; g++) {
        long n = length[g];
        if (n > 1) {
          long half = n >>> 1;
          long base = position[g];
          position[g] = OffHeapSearch.read(address, shift, base + half - 1) < keys[first + g] ? base + half : base;
          n -= half;
          length[g] = n;
        }
        longest = Math.max(longest, n);
      }
    }
    for (int g = 0; g < count; g++) {
      if (length[g] == 1 && OffHeapSearch.read(address, shift, position[g]) < keys[first + g]) {
        position[g]++;
      }
    }
  }

  /** Searches the column in every lookup's range and stores the row of its key, or -1, into {@code rows}. */
  void findInColumn(SortedKeyColumn column, long[] keys, int first, int count, long[] rows) {
    lowerBounds(column.address(), Long.numberOfTrailingZeros(column.width()), keys, first, count);
    for (int g = 0; g < count; g++) {
      long row = position[g];
      rows[first + g] = row < to[g] && column.key(row) == keys[first + g] ? row : -1;
    }
  }
}
