package org.spillway.storage;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
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
  private Set<String> exactDistinct;
  private long nullCount;
  private long valueCount;
  private long minLong = Long.MAX_VALUE;
  private long maxLong = Long.MIN_VALUE;
  private double minDouble = Double.POSITIVE_INFINITY;
  private double maxDouble = Double.NEGATIVE_INFINITY;
  private String minString;
  private String maxString;
  /** Whether the values observed here are non-decreasing (NULLs aside), as order keys ({@link #orderKey}). */
  private boolean ordered = true;
  /** Non-null values observed here (not merged in), whose order {@link #ordered} tells. */
  private long observed;
  private long firstKey;
  private long lastKey;
  /** Batches merged in, by table position: their own order and first and last keys. */
  private final TreeMap<Long, Segment> segments = new TreeMap<>();

  /** What a batch's collector knows of its order. */
  private record Segment(boolean ordered, long valueCount, long first, long last) {}

  ColumnStatisticsCollector(ColumnDef column, int maxExactDistinct) {
    this.column = column;
    this.maxExactDistinct = maxExactDistinct;
    this.exactDistinct = column.type().kind().isText() ? new HashSet<>() : null;
  }

  /** Observes the first {@code rows} values of a plain (not dictionary-encoded) vector of this column. */
  void observe(FieldVector vector, int rows) {
    for (int row = 0; row < rows; row++) {
      if (vector.isNull(row)) {
        nullCount++;
        continue;
      }
      valueCount++;
      switch (column.type().kind()) {
        case DOUBLE -> observeDouble(((Float8Vector) vector).get(row));
        case DATE -> observeLong(((DateDayVector) vector).get(row));
        case CHAR, VARCHAR -> observeString(((VarCharVector) vector).get(row));
        default -> observeLong(((BaseIntVector) vector).getValueAsLong(row));
      }
    }
  }

  private void observeLong(long v) {
    observeOrder(v);
    minLong = Math.min(minLong, v);
    maxLong = Math.max(maxLong, v);
    sketch.addLong(v);
  }

  private void observeDouble(double v) {
    observeOrder(orderKey(v));
    minDouble = Math.min(minDouble, v);
    maxDouble = Math.max(maxDouble, v);
    // +0.0 and -0.0 are one SQL value
    sketch.addLong(Double.doubleToLongBits(v == 0.0 ? 0.0 : v));
  }

  private void observeOrder(long key) {
    if (observed++ == 0) {
      firstKey = key;
    } else if (key < lastKey) {
      ordered = false;
    }
    lastKey = key;
  }

  /** A long that orders as the double does (-0.0 as 0.0; NaN above all). */
  private static long orderKey(double v) {
    long bits = Double.doubleToLongBits(v == 0.0 ? 0.0 : v);
    return bits ^ ((bits >> 63) & Long.MAX_VALUE);
  }

  private void observeString(byte[] utf8) {
    sketch.addBytes(utf8);
    String v = new String(utf8, StandardCharsets.UTF_8);
    if (minString == null || v.compareTo(minString) < 0) {
      minString = v;
    }
    if (maxString == null || v.compareTo(maxString) > 0) {
      maxString = v;
    }
    if (exactDistinct != null) {
      exactDistinct.add(v);
      if (exactDistinct.size() > maxExactDistinct) {
        exactDistinct = null;
      }
    }
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
      minString = other.minString;
    }
    if (other.maxString != null && (maxString == null || other.maxString.compareTo(maxString) > 0)) {
      maxString = other.maxString;
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

  /** The exact distinct values of a text column, or null if there are more than the limit. */
  Set<String> exactDistinct() {
    return exactDistinct;
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
    long distinct = exactDistinct != null ? exactDistinct.size() : Math.max(1, Math.min(valueCount, sketch.estimate()));
    return switch (column.type().kind()) {
      case DOUBLE -> new ColumnStatistics(column.name(), minDouble, maxDouble, nullCount, distinct, sorted);
      case CHAR, VARCHAR -> new ColumnStatistics(column.name(), minString, maxString, nullCount, distinct, false);
      default -> new ColumnStatistics(column.name(), ValueConversions.fromLong(column.type(), minLong),
          ValueConversions.fromLong(column.type(), maxLong), nullCount, distinct, sorted);
    };
  }
}
