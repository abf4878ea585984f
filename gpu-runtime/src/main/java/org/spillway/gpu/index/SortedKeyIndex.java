package org.spillway.gpu.index;

/**
 * A point-lookup index over a {@link SortedKeyColumn}: the lookup of a key returns its row in the column (the
 * tuple id the index join gathers with), or -1 when the column does not hold it. The four kinds of Schmeißer,
 * Lutz and Markl (EDBT 2025) implement it: {@link BinarySearchIndex}, {@link BPlusTree}, {@link Harmonia} and
 * {@link RadixSpline}.
 *
 * <p>Every index is clustered: the sorted column is its leaf level, so an index stores only what leads to a
 * stretch of the column. What it stores lives off-heap in one flat buffer per index (no Java object per node, no
 * pointers, only offsets into the buffer), allocated from the allocator the build is given: the GPU lookups read
 * the same buffer zero-copy over the link when that allocator hands out pinned memory. Closing the index frees
 * the buffer; the column stays its owner's.
 */
public interface SortedKeyIndex extends AutoCloseable {
  /** The row of {@code key} in the column, or -1 when the column does not hold it. */
  long lookup(long key);

  /**
   * Looks up {@code keys[0 .. count-1]} into {@code rows[0 .. count-1]} (-1 for a miss): a vector of probe keys
   * at a time, as the index join's probe hands them over.
   */
  default void lookup(long[] keys, int count, long[] rows) {
    for (int i = 0; i < count; i++) {
      rows[i] = lookup(keys[i]);
    }
  }

  IndexKind kind();

  /** The column the index is over. */
  SortedKeyColumn column();

  /** Bytes of the index's own structure, not counting the column (0 for binary search). */
  long sizeBytes();

  /** Nanoseconds the build took, the check of the column's order included. */
  long buildNanos();

  /** Frees the index's buffer. */
  @Override
  void close();
}
