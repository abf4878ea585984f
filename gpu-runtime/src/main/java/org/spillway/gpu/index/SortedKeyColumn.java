package org.spillway.gpu.index;

import java.util.Arrays;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;

/**
 * The column an index is built over and returns positions of: keys sorted ascending, unique, 4 or 8 bytes each, in
 * CPU memory at an address (an Arrow vector's data buffer, or pinned memory the GPU reads over the link). The
 * indexes never copy it into a Java array: the column is their leaf level, and it may hold more rows than an array
 * can (positions are longs).
 */
public final class SortedKeyColumn {
  private final long address;
  private final long rows;
  private final int shift;

  private SortedKeyColumn(long address, long rows, int shift) {
    if (rows < 0) {
      throw new IllegalArgumentException("a key column has at least 0 rows, got " + rows);
    }
    if (address == 0 && rows > 0) {
      throw new IllegalArgumentException("a key column of " + rows + " rows needs an address, got 0");
    }
    this.address = address;
    this.rows = rows;
    this.shift = shift;
  }

  /** {@code rows} 8-byte keys at {@code address}. */
  public static SortedKeyColumn ofLongs(long address, long rows) {
    return new SortedKeyColumn(address, rows, 3);
  }

  /** {@code rows} 4-byte keys at {@code address}. */
  public static SortedKeyColumn ofInts(long address, long rows) {
    return new SortedKeyColumn(address, rows, 2);
  }

  /** The keys of a BIGINT vector, which must have no NULL (a NULL key has no place in the order). */
  public static SortedKeyColumn of(BigIntVector vector) {
    return ofLongs(dataAddress(vector), vector.getValueCount());
  }

  /** The keys of an INTEGER vector, which must have no NULL. */
  public static SortedKeyColumn of(IntVector vector) {
    return ofInts(dataAddress(vector), vector.getValueCount());
  }

  private static long dataAddress(BaseFixedWidthVector vector) {
    if (vector.getNullCount() > 0) {
      throw new IllegalArgumentException("an index needs keys without NULL, but column " + vector.getName() + " has "
          + vector.getNullCount() + " NULLs in " + vector.getValueCount() + " rows");
    }
    return vector.getValueCount() == 0 ? 0 : vector.getDataBufferAddress();
  }

  public long address() {
    return address;
  }

  public long rows() {
    return rows;
  }

  /** Bytes per key: 4 or 8. */
  public int width() {
    return 1 << shift;
  }

  /** The key at {@code row}. */
  public long key(long row) {
    return OffHeapSearch.read(address, shift, row);
  }

  /** The first row of {@code from .. to-1} whose key is at least {@code key}, or {@code to}. */
  public long lowerBound(long from, long to, long key) {
    return OffHeapSearch.lowerBound(address, shift, from, to, key);
  }

  /** The row of {@code key} within {@code from .. to-1}, or -1. */
  public long find(long from, long to, long key) {
    long row = lowerBound(from, to, key);
    return row < to && key(row) == key ? row : -1;
  }

  /**
   * Checks on {@code threads} threads that every key is greater than the one before; throws
   * {@link UnsortedKeysException} naming the first row that is not, whichever thread finds it.
   */
  public void requireSortedUnique(int threads) {
    long[] firstBad = new long[ParallelRanges.ranges(rows, ParallelRanges.RANGE)];
    Arrays.fill(firstBad, -1);
    ParallelRanges.run(rows, ParallelRanges.RANGE, threads, (range, from, to) -> {
      long first = Math.max(from, 1);
      long previous = first < to ? key(first - 1) : 0;
      for (long row = first; row < to; row++) {
        long key = key(row);
        if (key <= previous) {
          firstBad[range] = row;
          return;
        }
        previous = key;
      }
    });
    for (long row : firstBad) {
      if (row >= 0) {
        throw new UnsortedKeysException(row, key(row - 1), key(row));
      }
    }
  }
}
