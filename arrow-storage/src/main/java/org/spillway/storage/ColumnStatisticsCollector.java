package org.spillway.storage;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Accumulates min, max, null count and distinct values of one column over the batches of a table being
 * written; text columns also keep their exact distinct set while it is small enough to become a dictionary.
 * Numeric and date columns also track whether their non-null values are non-decreasing in table order
 * ({@link ColumnStatistics#sorted}): one compare per row, and per batch its first and last value, so that batches
 * merged in any order chain in their table positions.
 */
final class ColumnStatisticsCollector {
  private final ColumnDef column;
  private final int maxExactDistinct;
  private final HyperLogLog sketch = new HyperLogLog();
  private Utf8Set exactDistinct;
  private long nullCount;
  private long valueCount;
  private long minLong = Long.MAX_VALUE;
  private long maxLong = Long.MIN_VALUE;
  private double minDouble = Double.POSITIVE_INFINITY;
  private double maxDouble = Double.NEGATIVE_INFINITY;
  private String minString;
  private String maxString;
  /** The minimum's and maximum's bytes where they are ASCII, else null. */
  private byte[] minAscii;
  private byte[] maxAscii;
  /**
   * The first byte of {@link #minAscii} and of {@link #maxAscii}, read once a bound changes rather than through the
   * arrays for every row; {@link Integer#MAX_VALUE} and {@link Integer#MIN_VALUE} where there is none.
   */
  private int minFirstByte = Integer.MAX_VALUE;
  private int maxFirstByte = Integer.MIN_VALUE;
  /** Whether the values observed here are non-decreasing (NULLs aside), as order keys ({@link #orderKey}). */
  private boolean ordered = true;
  /** Non-null values observed here (not merged in), whose order {@link #ordered} tells. */
  private long observed;
  private long firstKey;
  private long lastKey;
  /** The value {@link #observeBoundsAndSketch} took last, if any. */
  private long lastSketched;
  private boolean sketchedAny;
  /** Batches merged in, by table position: their own order and first and last keys. */
  private final TreeMap<Long, Segment> segments = new TreeMap<>();

  /** What a batch's collector knows of its order. */
  private record Segment(boolean ordered, long valueCount, long first, long last) {}

  ColumnStatisticsCollector(ColumnDef column, int maxExactDistinct) {
    this(column, maxExactDistinct, true);
  }

  /**
   * A collector that keeps the exact distinct set of a text column only if {@code trackDistinct}: a batch's
   * collector need not where the table's already has more distinct values than a dictionary holds.
   */
  ColumnStatisticsCollector(ColumnDef column, int maxExactDistinct, boolean trackDistinct) {
    this.column = column;
    this.maxExactDistinct = maxExactDistinct;
    this.exactDistinct = column.type().kind().isText() && trackDistinct ? new Utf8Set() : null;
  }

  /** Whether the exact distinct values are still known (a text column with few enough of them so far). */
  boolean tracksDistinct() {
    return exactDistinct != null;
  }

  /** Observes the first {@code rows} values of a plain (not dictionary-encoded) vector of this column. */
  void observe(FieldVector vector, int rows) {
    observe(vector, rows, null);
  }

  /**
   * As {@link #observe(FieldVector, int)}, for a vector whose non-NULL values are known to be exactly the
   * {@code distinct} ones (null: not known; a byte[][] of UTF-8 for text, a long[] for integers, decimals and dates,
   * as {@link BatchBuilder#declareDistinct} takes them): each is observed once for the bounds, the sketch and the
   * distinct set, which gives what observing every row gives, as a value seen before changes none of them. The
   * counts, and the order of numeric values, still come from every row.
   */
  void observe(FieldVector vector, int rows, Object distinct) {
    if (vector instanceof VarCharVector text) {
      if (distinct instanceof byte[][] values) {
        countNulls(VectorBuffers.validity(vector, rows), rows);
        for (byte[] value : values) {
          observeString(value, 0, value.length);
        }
      } else {
        observeText(text, rows);
      }
      return;
    }
    ByteBuffer validity = VectorBuffers.validity(vector, rows);
    long[] declared = distinct instanceof long[] values ? values : null;
    boolean integers = vector instanceof BigIntVector || vector instanceof IntVector || vector instanceof DateDayVector;
    if (integers && declared != null) {
      observeDeclaredNumbers(vector, rows, validity, declared);
    } else if (integers) {
      observeIntegers(vector, rows, validity);
    } else {
      observeNumbers(vector, rows, validity, declared);
    }
  }

  /**
   * Integers, decimals or dates whose distinct values are not declared (a plain Parquet page's, say): the counts, the
   * order, the bounds and the sketch in one pass over the rows, the state kept in locals and stored once. As
   * {@link #observeNumbers} and {@link #observeBoundsAndSketch} give it (the same order, bounds and sketch registers);
   * their three passes, the rows' keys copied out and state stored into fields per row, cost about a third more (5
   * to 7 against 4 to 5 ns a row in a micro-benchmark on the 2-core machine).
   */
  private void observeIntegers(FieldVector vector, int rows, ByteBuffer validity) {
    boolean wide = vector instanceof BigIntVector;
    LongBuffer longs = wide ? VectorBuffers.data(vector, rows, Long.BYTES).asLongBuffer() : null;
    IntBuffer ints = wide ? null : VectorBuffers.data(vector, rows, Integer.BYTES).asIntBuffer();
    boolean inOrder = ordered;
    long last = observed == 0 ? Long.MIN_VALUE : lastKey;  // the first value is in order whatever it is
    long sketched = lastSketched;
    boolean anySketched = sketchedAny;
    long min = minLong;
    long max = maxLong;
    long first = 0;
    int count = 0;
    for (int row = 0; row < rows; row++) {
      if (VectorBuffers.isNull(validity, row)) {
        continue;
      }
      long v = wide ? longs.get(row) : ints.get(row);
      if (count++ == 0) {
        first = v;
      }
      inOrder &= v >= last;
      last = v;
      if (v != sketched || !anySketched) {  // a value again changes neither the bounds nor the sketch
        anySketched = true;
        sketched = v;
        min = Math.min(min, v);
        max = Math.max(max, v);
        sketch.addLong(v);
      }
    }
    nullCount += rows - count;
    valueCount += count;
    if (count > 0) {
      if (observed == 0) {
        firstKey = first;
      }
      lastKey = last;
      ordered = inOrder;
      observed += count;
    }
    lastSketched = sketched;
    sketchedAny = anySketched;
    minLong = min;
    maxLong = max;
  }

  /**
   * Doubles, and integers of other widths, each row's value taken as its order key; for the bounds and the sketch
   * each row's value too, or each of the {@code declared} ones (null: not declared).
   */
  private void observeNumbers(FieldVector vector, int rows, ByteBuffer validity, long[] declared) {
    long[] keys = StatisticsScratch.ofThread().keys(rows);  // the order keys of the non-NULL rows
    // one loop per layout, reading the buffers through views (see VectorBuffers) into the non-NULL rows' order keys
    int count = 0;
    if (vector instanceof Float8Vector) {
      DoubleBuffer doubles = VectorBuffers.data(vector, rows, Double.BYTES).asDoubleBuffer();
      for (int row = 0; row < rows; row++) {
        if (!VectorBuffers.isNull(validity, row)) {
          double v = doubles.get(row);
          keys[count++] = orderKey(v);
          observeBoundsAndSketch(v);
        }
      }
    } else {
      for (int row = 0; row < rows; row++) {
        if (!VectorBuffers.isNull(validity, row)) {
          keys[count++] = ((BaseIntVector) vector).getValueAsLong(row);
        }
      }
    }
    nullCount += rows - count;
    valueCount += count;
    observeOrder(keys, count);
    if (vector instanceof Float8Vector) {
      return;
    }
    if (declared == null) {
      for (int i = 0; i < count; i++) {
        observeBoundsAndSketch(keys[i]);
      }
    } else {
      for (long v : declared) {
        observeBoundsAndSketch(v);
      }
    }
  }

  /**
   * Integers, decimals or dates whose distinct values are {@code declared}: each of those once for the bounds and the
   * sketch, the counts from the validity bits, and the order scanned in place only until it breaks (a batch out of
   * order makes the table unsorted, whatever its first and last values), without copying every row's value out.
   */
  private void observeDeclaredNumbers(FieldVector vector, int rows, ByteBuffer validity, long[] declared) {
    int nulls = countNulls(validity, rows);
    boolean inOrder = ordered;
    boolean any = observed > 0;
    long last = lastKey;
    boolean wide = vector instanceof BigIntVector;
    LongBuffer longs = wide ? VectorBuffers.data(vector, rows, Long.BYTES).asLongBuffer() : null;
    IntBuffer ints = wide ? null : VectorBuffers.data(vector, rows, Integer.BYTES).asIntBuffer();
    for (int row = 0; row < rows && inOrder; row++) {
      if (!VectorBuffers.isNull(validity, row)) {
        long key = wide ? longs.get(row) : ints.get(row);
        if (!any) {
          firstKey = key;
          last = key;
          any = true;
        }
        inOrder = key >= last;
        last = key;
      }
    }
    ordered = inOrder;
    lastKey = last;
    observed += rows - nulls;
    for (long v : declared) {
      observeBoundsAndSketch(v);
    }
  }

  /**
   * Counts the NULLs and the values of {@code rows} rows by their validity bits ({@link VectorBuffers#validity}: null
   * where none is NULL, then without a look at any row); returns the NULLs.
   */
  private int countNulls(ByteBuffer validity, int rows) {
    int nulls = 0;
    for (int row = 0; validity != null && row < rows; row++) {
      nulls += VectorBuffers.isNull(validity, row) ? 1 : 0;
    }
    nullCount += nulls;
    valueCount += rows - nulls;
    return nulls;
  }

  private void observeBoundsAndSketch(long v) {
    if (v == lastSketched && sketchedAny) {
      return;  // a value again (a sorted key's repeats, say) changes neither the bounds nor the sketch
    }
    sketchedAny = true;
    lastSketched = v;
    minLong = Math.min(minLong, v);
    maxLong = Math.max(maxLong, v);
    sketch.addLong(v);
  }

  private void observeBoundsAndSketch(double v) {
    minDouble = Math.min(minDouble, v);
    maxDouble = Math.max(maxDouble, v);
    // +0.0 and -0.0 are one SQL value
    sketch.addLong(Double.doubleToLongBits(v == 0.0 ? 0.0 : v));
  }

  /**
   * The order of a batch's non-NULL values, the first {@code count} order keys of {@code keys}: whether they are
   * non-decreasing, and after the values observed before them. Kept in locals for the loop, then stored.
   */
  private void observeOrder(long[] keys, int count) {
    if (count == 0) {
      return;
    }
    if (observed == 0) {
      firstKey = keys[0];
      lastKey = keys[0];
    }
    boolean inOrder = ordered;
    long last = lastKey;
    for (int i = 0; i < count; i++) {
      long key = keys[i];
      inOrder &= key >= last;
      last = key;
    }
    ordered = inOrder;
    lastKey = last;
    observed += count;
  }

  /** A long that orders as the double does (-0.0 as 0.0; NaN above all). */
  private static long orderKey(double v) {
    long bits = Double.doubleToLongBits(v == 0.0 ? 0.0 : v);
    return bits ^ ((bits >> 63) & Long.MAX_VALUE);
  }

  /**
   * Text values straight from the vector's buffers: the batch's bytes are copied at once into the thread's array
   * ({@link StatisticsScratch}), and their hashes made for the whole batch first
   * ({@link HyperLogLog#hashBytes(byte[], int[], int, long[])}).
   */
  private void observeText(VarCharVector vector, int rows) {
    IntBuffer offsets = VectorBuffers.offsets(vector, rows);
    ByteBuffer validity = VectorBuffers.validity(vector, rows);
    int first = offsets.get(0);
    int end = offsets.get(rows);
    StatisticsScratch arrays = StatisticsScratch.ofThread();
    byte[] scratch = arrays.text(end - first);
    vector.getDataBuffer().getBytes(first, scratch, 0, end - first);
    int[] bounds = arrays.bounds(rows + 1);
    long[] hashes = arrays.hashes(rows);
    for (int row = 0; row <= rows; row++) {
      bounds[row] = offsets.get(row) - first;
    }
    HyperLogLog.hashBytes(scratch, bounds, rows, hashes);  // NULL rows are empty, and their hashes unused
    if (exactDistinct != null && rows > maxExactDistinct && DistinctHashes.exceed(hashes, validity, rows,
        maxExactDistinct, arrays.hashTable(DistinctHashes.tableSlots(maxExactDistinct)))) {
      // the batch alone has more distinct values than the set keeps, so the set would overflow in the loop below;
      // without it, every row is observed as after an overflow (a value seen before changes nothing either way)
      exactDistinct = null;
    }
    boolean allAscii = Ascii.isAscii(scratch, 0, end - first);  // then no value needs a check of its own
    for (int row = 0; row < rows; row++) {
      if (VectorBuffers.isNull(validity, row)) {
        nullCount++;
      } else {
        valueCount++;
        observeString(scratch, bounds[row], bounds[row + 1] - bounds[row], hashes[row], allAscii);
      }
    }
  }

  private void observeString(byte[] utf8, int from, int length) {
    observeString(utf8, from, length, HyperLogLog.hashBytes(utf8, from, length), false);
  }

  /**
   * One text value, the {@code length} bytes of {@code utf8} from {@code from} on, whose {@link HyperLogLog#hashBytes}
   * is {@code hash}, and which is known to be ASCII if {@code knownAscii} (else it is checked). While the exact
   * distinct values are kept, a value seen before changes nothing (the sketch, the minimum and the maximum have it
   * already), so most rows of a text column that becomes a dictionary cost one hash and one probe. A String is made
   * only for a new minimum or maximum, and to compare a value or bound that is not ASCII (whose bytes do not order
   * as Strings do).
   */
  private void observeString(byte[] utf8, int from, int length, long hash, boolean knownAscii) {
    if (exactDistinct != null) {
      if (!exactDistinct.add(utf8, from, length, hash)) {
        return;
      }
      if (exactDistinct.size() > maxExactDistinct) {
        exactDistinct = null;
      }
    }
    sketch.addHash(hash);
    boolean ascii = knownAscii || Ascii.isAscii(utf8, from, length);
    // an ASCII value above the minimum and below the maximum by its first byte alone changes neither bound: the two
    // compares of every row of a wide text column (its comments, say) are one byte's; ASCII bytes order as the
    // Strings' chars do
    if (ascii && length > 0 && utf8[from] > minFirstByte && utf8[from] < maxFirstByte) {
      return;
    }
    String v = null;
    if (minString == null || compare(utf8, from, length, ascii, minAscii, minString) < 0) {
      v = new String(utf8, from, length, StandardCharsets.UTF_8);
      setMin(v, ascii ? Arrays.copyOfRange(utf8, from, from + length) : null);
    }
    if (maxString == null || compare(utf8, from, length, ascii, maxAscii, maxString) > 0) {
      v = v != null ? v : new String(utf8, from, length, StandardCharsets.UTF_8);
      setMax(v, ascii ? Arrays.copyOfRange(utf8, from, from + length) : null);
    }
  }

  /**
   * Sets the minimum, its bytes where ASCII ({@code ascii}, else null) and its first byte for the check by first
   * byte (where the minimum is not ASCII or empty, one above every byte, so that no value passes that check).
   */
  private void setMin(String min, byte[] ascii) {
    minString = min;
    minAscii = ascii;
    minFirstByte = ascii != null && ascii.length > 0 ? ascii[0] : Integer.MAX_VALUE;
  }

  /** As {@link #setMin}, for the maximum (its first byte below every byte where it is not ASCII or empty). */
  private void setMax(String max, byte[] ascii) {
    maxString = max;
    maxAscii = ascii;
    maxFirstByte = ascii != null && ascii.length > 0 ? ascii[0] : Integer.MIN_VALUE;
  }

  /** Compares a value with a bound as Strings do: byte by byte where both are ASCII, else as Strings. */
  private static int compare(byte[] utf8, int from, int length, boolean ascii, byte[] boundAscii, String bound) {
    if (ascii && boundAscii != null) {
      return Arrays.compare(utf8, from, from + length, boundAscii, 0, boundAscii.length);
    }
    return new String(utf8, from, length, StandardCharsets.UTF_8).compareTo(bound);
  }

  /**
   * Folds the collector of one batch of the same column (one that observed rows and merged none), the rows at table
   * position {@code position}, into this one. Positions order the batches of a table; merges may come in any order.
   */
  void merge(ColumnStatisticsCollector other, long position) {
    if (!other.segments.isEmpty()) {
      throw new IllegalArgumentException("a collector that merged batches is no batch of its own");
    }
    if (segments.put(position, new Segment(other.isSorted(), other.observed, other.firstKey, other.lastKey)) != null) {
      throw new IllegalArgumentException("two batches at position " + position + " of column " + column.name());
    }
    nullCount += other.nullCount;
    valueCount += other.valueCount;
    minLong = Math.min(minLong, other.minLong);
    maxLong = Math.max(maxLong, other.maxLong);
    minDouble = Math.min(minDouble, other.minDouble);
    maxDouble = Math.max(maxDouble, other.maxDouble);
    if (other.minString != null && (minString == null || other.minString.compareTo(minString) < 0)) {
      setMin(other.minString, other.minAscii);
    }
    if (other.maxString != null && (maxString == null || other.maxString.compareTo(maxString) > 0)) {
      setMax(other.maxString, other.maxAscii);
    }
    sketch.merge(other.sketch);
    if (exactDistinct != null) {
      if (other.exactDistinct == null) {
        exactDistinct = null;
      } else {
        exactDistinct.addAll(other.exactDistinct);
        if (exactDistinct.size() > maxExactDistinct) {
          exactDistinct = null;
        }
      }
    }
  }

  /**
   * The number of exact distinct values (as bytes) of a text column, or -1 if there are more than the limit (or the
   * column is no text); cheaper than {@link #exactDistinct()}, which makes their strings.
   */
  int exactDistinctCount() {
    return exactDistinct == null ? -1 : exactDistinct.size();
  }

  /** The exact distinct values of a text column, or null if there are more than the limit. */
  Set<String> exactDistinct() {
    return exactDistinct == null ? null : exactDistinct.toStrings();
  }

  /**
   * Whether the non-null values are known non-decreasing: those observed here, then the merged batches in position
   * order, each starting at or above where the one before ended. Text columns are not tracked (false).
   */
  private boolean isSorted() {
    if (column.type().kind().isText() || !ordered) {
      return false;
    }
    boolean any = observed > 0;
    long last = lastKey;
    for (Segment s : segments.values()) {
      if (!s.ordered()) {
        return false;
      }
      if (s.valueCount() == 0) {
        continue;
      }
      if (any && s.first() < last) {
        return false;
      }
      any = true;
      last = s.last();
    }
    return true;
  }

  ColumnStatistics toStatistics() {
    boolean sorted = isSorted();
    if (valueCount == 0) {
      return new ColumnStatistics(column.name(), null, null, nullCount, 0, sorted);
    }
    long distinct = exactDistinct != null ? exactDistinct.toStrings().size()
        : Math.max(1, Math.min(valueCount, sketch.estimate()));
    return switch (column.type().kind()) {
      case DOUBLE -> new ColumnStatistics(column.name(), minDouble, maxDouble, nullCount, distinct, sorted);
      case CHAR, VARCHAR -> new ColumnStatistics(column.name(), minString, maxString, nullCount, distinct, false);
      default -> new ColumnStatistics(column.name(), ValueConversions.fromLong(column.type(), minLong),
          ValueConversions.fromLong(column.type(), maxLong), nullCount, distinct, sorted);
    };
  }
}
