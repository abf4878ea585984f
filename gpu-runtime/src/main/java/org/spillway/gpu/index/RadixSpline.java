package org.spillway.gpu.index;

import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * RadixSpline (Kipf et al., aiDM 2020), the learned index Schmeißer, Lutz and Markl recommend: spline points
 * (key, row) chosen so that interpolating between two neighbours misses no key's row by more than the error
 * bound, and a radix table that maps the top bits of a key's offset from the smallest key to the first spline
 * point with those bits. A lookup reads the radix table, binary-searches the few spline points of its slot,
 * interpolates, and searches the column only within the error bound around the estimate.
 *
 * <p>The spline points come from the greedy spline corridor (Neumann and Michel, 2008) in one pass over the
 * column; the column is cut into ranges that get their corridors on all cores (each range starts and ends with a
 * spline point, which costs a point per range and keeps the bound, as neighbouring rows interpolate exactly).
 * The radix table and the spline keys and rows lie in one buffer, each region 128-byte aligned.
 */
public final class RadixSpline implements SortedKeyIndex {
  /** Radix bits of the paper's configuration (the reference implementation's default). */
  public static final int RADIX_BITS = 18;
  /** Error bound of the paper's configuration, in rows. */
  public static final int MAX_ERROR = 32;
  /** A lookup's row while its search goes on (no row is negative but -1, a miss). */
  private static final long UNDECIDED = Long.MIN_VALUE;

  private final SortedKeyColumn column;
  private final ArrowBuf regions;
  private final long bytes;
  private final int radixBits;
  private final int shift;
  private final int maxError;
  private final long points;
  private final long keyRegion;
  private final long rowRegion;
  private final long min;
  private final long max;
  private final long buildNanos;

  private RadixSpline(SortedKeyColumn column, ArrowBuf regions, long bytes, int radixBits, int shift,
      int maxError, long points, long keyRegion, long rowRegion, long buildNanos) {
    this.column = column;
    this.regions = regions;
    this.bytes = bytes;
    this.radixBits = radixBits;
    this.shift = shift;
    this.maxError = maxError;
    this.points = points;
    this.keyRegion = keyRegion;
    this.rowRegion = rowRegion;
    this.min = column.rows() == 0 ? 0 : column.key(0);
    this.max = column.rows() == 0 ? 0 : column.key(column.rows() - 1);
    this.buildNanos = buildNanos;
  }

  /** Builds with the paper's {@link #RADIX_BITS} and {@link #MAX_ERROR}. */
  public static RadixSpline build(SortedKeyColumn column, BufferAllocator allocator, int threads) {
    return build(column, allocator, threads, RADIX_BITS, MAX_ERROR);
  }

  /**
   * Builds over {@code column} on {@code threads} threads with at most {@code radixBits} radix bits (fewer when
   * the keys span fewer bits, or when the table would have more than four slots a row) and an error bound of
   * {@code maxError} rows.
   */
  public static RadixSpline build(SortedKeyColumn column, BufferAllocator allocator, int threads, int radixBits,
      int maxError) {
    if (radixBits < 1 || radixBits > 28) {
      throw new IllegalArgumentException("RadixSpline takes 1 to 28 radix bits, got " + radixBits);
    }
    if (maxError < 0) {
      throw new IllegalArgumentException("RadixSpline's error bound is at least 0 rows, got " + maxError);
    }
    long start = System.nanoTime();
    column.requireSortedUnique(threads);
    long rows = column.rows();
    long min = rows == 0 ? 0 : column.key(0);
    int spanBits = rows == 0 ? 0 : 64 - Long.numberOfLeadingZeros(column.key(rows - 1) - min);
    int bits = Math.min(Math.min(radixBits, spanBits), 65 - Long.numberOfLeadingZeros(rows));
    int shift = spanBits - bits;

    long[][] splineRows = new long[ParallelRanges.ranges(rows, ParallelRanges.RANGE)][];
    ParallelRanges.run(rows, ParallelRanges.RANGE, threads,
        (range, from, to) -> splineRows[range] = corridor(column, from, to, maxError));
    long[] firstPoint = new long[splineRows.length + 1];
    for (int range = 0; range < splineRows.length; range++) {
      firstPoint[range + 1] = firstPoint[range] + splineRows[range].length;
    }
    long points = firstPoint[splineRows.length];

    long slots = (1L << bits) + 1;
    long keyRegion = align(slots * Long.BYTES);
    long rowRegion = keyRegion + align(points * Long.BYTES);
    long bytes = rowRegion + points * Long.BYTES;
    ArrowBuf regions = allocator.buffer(bytes);
    try {
      long table = regions.memoryAddress();
      ParallelRanges.run(rows, ParallelRanges.RANGE, threads, (range, from, to) -> {
        long at = firstPoint[range];
        for (long row : splineRows[range]) {
          MemoryUtil.putLong(table + keyRegion + at * Long.BYTES, column.key(row));
          MemoryUtil.putLong(table + rowRegion + at * Long.BYTES, row);
          at++;
        }
      });
      // Slots prev+1 .. p go to point i, where p is point i's prefix and prev the one before's: every slot is
      // written by exactly one point, so the points' ranges fill the table in parallel.
      ParallelRanges.run(points, ParallelRanges.RANGE, threads, (range, from, to) -> {
        for (long i = from; i < to; i++) {
          long prefix = (MemoryUtil.getLong(table + keyRegion + i * Long.BYTES) - min) >>> shift;
          long previous = i == 0 ? -1 : (MemoryUtil.getLong(table + keyRegion + (i - 1) * Long.BYTES) - min) >>> shift;
          for (long slot = previous + 1; slot <= prefix; slot++) {
            MemoryUtil.putLong(table + slot * Long.BYTES, i);
          }
          if (i == points - 1) {
            for (long slot = prefix + 1; slot < slots; slot++) {
              MemoryUtil.putLong(table + slot * Long.BYTES, points);
            }
          }
        }
      });
    } catch (RuntimeException | Error e) {
      regions.close();
      throw e;
    }
    return new RadixSpline(column, regions, bytes, bits, shift, maxError, points, keyRegion, rowRegion,
        System.nanoTime() - start);
  }

  private static long align(long bytes) {
    return (bytes + 127) & ~127L;
  }

  /**
   * The spline rows of {@code from .. to-1}, first and last included: the greedy spline corridor keeps, from the
   * last spline point, the narrowest range of slopes that passes within {@code maxError} rows of every key seen
   * since; the key that leaves it makes the key before it the next spline point.
   */
  static long[] corridor(SortedKeyColumn column, long from, long to, int maxError) {
    long[] out = new long[16];
    int count = 0;
    out[count++] = from;
    if (to - from > 2) {
      long baseRow = from;
      long baseKey = column.key(from);
      double upperX = unsigned(column.key(from + 1) - baseKey);
      double upperY = 1 + maxError;
      double lowerX = upperX;
      double lowerY = 1 - maxError;
      for (long row = from + 2; row < to; row++) {
        long key = column.key(row);
        double dx = unsigned(key - baseKey);
        double dy = row - baseRow;
        // The slope to this key leaves the corridor when it is above the upper or below the lower bound
        // (dx and the bounds' x are positive, so the slopes compare by cross products).
        if (dy * upperX > upperY * dx || dy * lowerX < lowerY * dx) {
          if (count == out.length) {
            out = Arrays.copyOf(out, count * 2);
          }
          baseRow = row - 1;
          baseKey = column.key(baseRow);
          out[count++] = baseRow;
          dx = unsigned(key - baseKey);
          dy = 1;
          upperX = dx;
          upperY = dy + maxError;
          lowerX = dx;
          lowerY = dy - maxError;
        } else {
          if ((dy + maxError) * upperX < upperY * dx) {
            upperX = dx;
            upperY = dy + maxError;
          }
          if ((dy - maxError) * lowerX > lowerY * dx) {
            lowerX = dx;
            lowerY = dy - maxError;
          }
        }
      }
    }
    if (to - from > 1) {
      if (count == out.length) {
        out = Arrays.copyOf(out, count + 1);
      }
      out[count++] = to - 1;
    }
    return Arrays.copyOf(out, count);
  }

  /** {@code value} read as an unsigned 64-bit number (a difference of two keys can exceed Long.MAX_VALUE). */
  private static double unsigned(long value) {
    return value >= 0 ? value : (double) (value >>> 1) * 2.0;
  }

  @Override
  public long lookup(long key) {
    if (column.rows() == 0 || key < min || key > max) {
      return -1;
    }
    long slot = (key - min) >>> shift;
    long up = OffHeapSearch.lowerBound(keyRegion(), 3, firstPoint(slot), endPoint(slot), key);
    long upRow = pointRow(up);
    if (pointKey(up) == key) {
      return upRow;
    }
    long lo = pointRow(up - 1) + 1;
    long guess = estimate(up, key);
    long answer = atEstimate(guess, lo, upRow, key);
    if (answer != UNDECIDED) {
      return answer;
    }
    long from = windowFrom(guess, lo, upRow);
    long to = windowTo(guess, lo, upRow);
    return settle(column.lowerBound(from, to, key), from, to, lo, upRow, key);
  }

  @Override
  public void lookup(long[] keys, int count, long[] rows) {
    LookupGroup group = new LookupGroup();
    long[] lo = new long[LookupGroup.SIZE];
    long[] hi = new long[LookupGroup.SIZE];
    for (int first = 0; first < count; first += LookupGroup.SIZE) {
      int n = Math.min(LookupGroup.SIZE, count - first);
      for (int g = 0; g < n; g++) {
        long key = keys[first + g];
        boolean outside = column.rows() == 0 || key < min || key > max;
        long slot = outside ? 0 : (key - min) >>> shift;
        group.from[g] = outside ? 0 : firstPoint(slot);
        group.to[g] = outside ? 0 : endPoint(slot);
        rows[first + g] = outside ? -1 : UNDECIDED;
      }
      group.lowerBounds(keyRegion(), 3, keys, first, n);
      for (int g = 0; g < n; g++) {
        long key = keys[first + g];
        long up = group.position[g];
        if (rows[first + g] == UNDECIDED && pointKey(up) == key) {
          rows[first + g] = pointRow(up);
        }
        if (rows[first + g] != UNDECIDED) {
          group.from[g] = 0;
          group.to[g] = 0;
          continue;
        }
        lo[g] = pointRow(up - 1) + 1;
        hi[g] = pointRow(up);
        long guess = estimate(up, key);
        long answer = atEstimate(guess, lo[g], hi[g], key);
        if (answer != UNDECIDED) {
          rows[first + g] = answer;
          group.from[g] = 0;
          group.to[g] = 0;
          continue;
        }
        group.from[g] = windowFrom(guess, lo[g], hi[g]);
        group.to[g] = windowTo(guess, lo[g], hi[g]);
      }
      group.lowerBounds(column.address(), Long.numberOfTrailingZeros(column.width()), keys, first, n);
      for (int g = 0; g < n; g++) {
        if (rows[first + g] == UNDECIDED) {
          rows[first + g] = settle(group.position[g], group.from[g], group.to[g], lo[g], hi[g], keys[first + g]);
        }
      }
    }
  }

  private long keyRegion() {
    return regions.memoryAddress() + keyRegion;
  }

  private long pointKey(long point) {
    return MemoryUtil.getLong(keyRegion() + point * Long.BYTES);
  }

  private long pointRow(long point) {
    return MemoryUtil.getLong(regions.memoryAddress() + rowRegion + point * Long.BYTES);
  }

  /** The first spline point of radix slot {@code slot}. */
  private long firstPoint(long slot) {
    return MemoryUtil.getLong(regions.memoryAddress() + slot * Long.BYTES);
  }

  /**
   * The end of the spline points to search for a key of {@code slot}: the slot's points all have smaller keys
   * than the next slot's first point, whose key is above any of the slot's, so the first point at or above the
   * key is among them or is that point.
   */
  private long endPoint(long slot) {
    return Math.min(MemoryUtil.getLong(regions.memoryAddress() + (slot + 1) * Long.BYTES) + 1, points);
  }

  /** The row the spline segment ending at point {@code up} interpolates for {@code key}. */
  private long estimate(long up, long key) {
    long downKey = pointKey(up - 1);
    long downRow = pointRow(up - 1);
    return (long) (downRow + unsigned(key - downKey) * (pointRow(up) - downRow) / unsigned(pointKey(up) - downKey));
  }

  /**
   * The answer the estimate {@code guess} (a row strictly between the segment's points) gives without the search over
   * the error bound's window, as the GPU lookup does (radix_spline.cu): its row where the key is there (the spline is
   * exact on evenly spaced keys), -1 where the key lies between it and its neighbour (a key in a gap, which no row
   * holds), each read from the estimate's line; {@link #UNDECIDED} where the search must decide. The neighbours
   * {@code lo - 1} and {@code hi} are the segment's points, rows of the column.
   */
  private long atEstimate(long guess, long lo, long hi, long key) {
    if (guess < lo || guess >= hi) {
      return UNDECIDED;
    }
    long at = column.key(guess);
    if (at == key) {
      return guess;
    }
    long neighbour = column.key(at < key ? guess + 1 : guess - 1);
    return (at < key ? neighbour > key : neighbour < key) ? -1 : UNDECIDED;
  }

  /**
   * The window's first row: the key lies strictly between its segment's points' rows ({@code lo .. hi-1}), and
   * within the error bound of the estimate.
   */
  private long windowFrom(long guess, long lo, long hi) {
    return Math.max(lo, Math.min(hi, guess - maxError));
  }

  private long windowTo(long guess, long lo, long hi) {
    return Math.max(lo, Math.min(hi, guess + maxError + 2));
  }

  /**
   * The key's row from the lower bound {@code row} found in the window {@code from .. to-1} of
   * {@code lo .. hi-1}, or -1. Should rounding of the interpolation put the key outside the window, the search
   * goes on beside it, so a lookup never depends on the arithmetic for its answer, only for its speed.
   */
  private long settle(long row, long from, long to, long lo, long hi, long key) {
    if (row == from && from > lo && (from == hi || column.key(from) > key)) {
      row = column.lowerBound(lo, from, key);
    } else if (row == to && to < hi) {
      row = column.lowerBound(to, hi, key);
    }
    return row < hi && column.key(row) == key ? row : -1;
  }

  /**
   * The arguments of the GPU lookup (radix_spline_lookup, after the column's): radix table, spline keys and rows
   * where the GPU sees the buffer at {@code regionsAddress}, points, shift, error bound, smallest and greatest key.
   */
  Object[] kernelArguments(long regionsAddress) {
    return new Object[] {regionsAddress, regionsAddress + keyRegion, regionsAddress + rowRegion, points, shift,
        maxError, min, max};
  }

  long structureAddress() {
    return regions.memoryAddress();
  }

  /** Spline points. */
  public long points() {
    return points;
  }

  /** Radix bits the table uses (at most the requested, fewer for narrow key ranges or few rows). */
  public int radixBits() {
    return radixBits;
  }

  public int maxError() {
    return maxError;
  }

  @Override
  public IndexKind kind() {
    return IndexKind.RADIXSPLINE;
  }

  @Override
  public SortedKeyColumn column() {
    return column;
  }

  @Override
  public long sizeBytes() {
    return bytes;
  }

  @Override
  public long buildNanos() {
    return buildNanos;
  }

  @Override
  public void close() {
    regions.close();
  }
}
