package org.spillway.adapter;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import java.math.BigDecimal;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.metadata.RelMdUtil;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.Sarg;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.spillway.storage.ColumnStatistics;
import org.spillway.storage.StoredTable;

/**
 * Estimates the share of rows one filter conjunct keeps. A comparison or range search of a plain scanned column
 * with literals is estimated from the column's statistics (min, max, distinct values, nulls), assuming values
 * spread evenly over [min, max]: a range holds {@code width * (distinct - 1) + closed ends - 1} distinct values,
 * exact for evenly spaced values such as TPC-H's discounts and quantities. A LIKE of a plain text column is
 * measured on a sample of the column ({@link SpillwayLikeSample}). Anything else asks Calcite's
 * {@link org.apache.calcite.rel.metadata.RelMetadataQuery#getSelectivity}.
 */
final class SpillwaySelectivity {
  private SpillwaySelectivity() {}

  /**
   * The selectivity of {@code conjunct}, an expression over {@code filter}'s input, whose field {@code i} is
   * scan column {@code plain[i]} (or -1 when it is computed).
   */
  static double of(RexNode conjunct, Filter filter, int[] plain, SpillwayTableScan scan) {
    int[] columns = new int[plain.length];
    for (int i = 0; i < plain.length; i++) {
      columns[i] = plain[i] < 0 ? -1 : scan.fields()[plain[i]];
    }
    Double known = ofColumns(conjunct, scan.spillwayTable().stored(), columns);
    if (known != null) {
      return known;
    }
    Double calcite = filter.getCluster().getMetadataQuery().getSelectivity(filter.getInput(), conjunct);
    return calcite != null ? calcite : RelMdUtil.guessSelectivity(conjunct);
  }

  /**
   * The selectivity of {@code conjunct} over rows whose field {@code i} is column {@code columns[i]} of
   * {@code table} (-1: computed) from the column statistics, or for LIKE from a sample of the column; null when
   * neither applies.
   */
  static @Nullable Double ofColumns(RexNode conjunct, StoredTable table, int[] columns) {
    Double fromStatistics = fromStatistics(conjunct, table, columns);
    return fromStatistics != null ? fromStatistics : SpillwayLikeSample.selectivity(conjunct, table, columns);
  }

  private static Double fromStatistics(RexNode conjunct, StoredTable table, int[] columns) {
    if (!(conjunct instanceof RexCall call) || call.getOperands().size() != 2) {
      return null;
    }
    RexNode left = call.getOperands().get(0);
    RexNode right = call.getOperands().get(1);
    SqlKind kind = call.getKind();
    if (left instanceof RexLiteral && right instanceof RexInputRef) {
      RexNode swap = left;
      left = right;
      right = swap;
      kind = kind.reverse();
    }
    if (!(left instanceof RexInputRef ref) || !(right instanceof RexLiteral literal)
        || ref.getIndex() >= columns.length || columns[ref.getIndex()] < 0) {
      return null;
    }
    if (table.rowCount() > 0 && table.schema().column(columns[ref.getIndex()]).type().kind().isText()) {
      return textEquality(kind, literal, table.statistics().column(columns[ref.getIndex()]), table.rowCount());
    }
    Stats stats = Stats.of(table, columns[ref.getIndex()]);
    if (stats == null) {
      return null;
    }
    if (kind == SqlKind.SEARCH) {
      Sarg<?> sarg = literal.getValueAs(Sarg.class);
      double kept = 0;
      for (Range<?> range : sarg.rangeSet.asRanges()) {
        Double share = stats.share(range);
        if (share == null) {
          return null;
        }
        kept += share;
      }
      return stats.notNull * Math.min(1, kept);
    }
    Double v = number(literalValue(literal));
    if (v == null) {
      return null;
    }
    Range<Double> range = switch (kind) {
      case EQUALS -> Range.singleton(v);
      case LESS_THAN -> Range.lessThan(v);
      case LESS_THAN_OR_EQUAL -> Range.atMost(v);
      case GREATER_THAN -> Range.greaterThan(v);
      case GREATER_THAN_OR_EQUAL -> Range.atLeast(v);
      case NOT_EQUALS -> null;
      default -> Range.all();
    };
    if (kind == SqlKind.NOT_EQUALS) {
      return stats.notNull * (1 - stats.share(Range.singleton(v)));
    }
    return range.equals(Range.all()) ? null : stats.notNull * stats.share(range);
  }

  /**
   * The selectivity of a text column's (in)equality with literals or IN list, each value assumed as frequent as
   * any other of the column's distinct values; null for other comparisons (their share of strings is unknown).
   */
  private static @Nullable Double textEquality(SqlKind kind, RexLiteral literal, ColumnStatistics column, long rows) {
    double distinct = Math.max(1, column.distinctCount());
    double notNull = 1 - column.nullCount() / (double) rows;
    return switch (kind) {
      case EQUALS -> notNull / distinct;
      case NOT_EQUALS -> notNull * (1 - 1 / distinct);
      case SEARCH -> {
        Sarg<?> sarg = literal.getValueAs(Sarg.class);
        if (sarg.isPoints()) {
          yield notNull * Math.min(1, sarg.rangeSet.asRanges().size() / distinct);
        } else if (sarg.isComplementedPoints()) {
          yield notNull * Math.max(0, 1 - sarg.rangeSet.complement().asRanges().size() / distinct);
        }
        yield null;
      }
      default -> null;
    };
  }

  /** A literal's value as the statistics hold it: numbers as numbers, dates as days since 1970-01-01. */
  private static Object literalValue(RexLiteral literal) {
    return switch (literal.getTypeName()) {
      case DATE -> literal.getValueAs(Integer.class);
      case DECIMAL, INTEGER, BIGINT, SMALLINT, TINYINT, DOUBLE, FLOAT, REAL -> literal.getValueAs(BigDecimal.class);
      default -> null;
    };
  }

  /** A value as a double, or null if it is not a number or date. */
  private static Double number(Object value) {
    if (value instanceof Number n) {
      return n.doubleValue();
    }
    if (value instanceof DateString d) {
      return (double) d.getDaysSinceEpoch();
    }
    if (value instanceof java.time.LocalDate d) {
      return (double) d.toEpochDay();
    }
    return null;
  }

  /** The statistics of one scanned column, as numbers. */
  private record Stats(double min, double max, double distinct, double notNull) {
    static Stats of(StoredTable table, int tableColumn) {
      if (table.rowCount() == 0) {
        return null;
      }
      ColumnStatistics column = table.statistics().column(tableColumn);
      Double min = number(column.min());
      Double max = number(column.max());
      if (min == null || max == null || column.distinctCount() < 1) {
        return null;
      }
      return new Stats(min, max, column.distinctCount(), 1 - column.nullCount() / (double) table.rowCount());
    }

    /** The share of the non-null values in {@code range} (bounds of any number-like type); null if not numbers. */
    Double share(Range<?> range) {
      Double lo = range.hasLowerBound() ? number(range.lowerEndpoint()) : Double.valueOf(min);
      Double hi = range.hasUpperBound() ? number(range.upperEndpoint()) : Double.valueOf(max);
      if (lo == null || hi == null) {
        return null;
      }
      boolean loClosed = !range.hasLowerBound() || range.lowerBoundType() == BoundType.CLOSED || lo < min;
      boolean hiClosed = !range.hasUpperBound() || range.upperBoundType() == BoundType.CLOSED || hi > max;
      lo = Math.max(lo, min);
      hi = Math.min(hi, max);
      if (lo > hi || (lo.equals(hi) && !(loClosed && hiClosed))) {
        return 0.0;
      }
      if (max == min) {
        return 1.0;
      }
      double values = (hi - lo) / (max - min) * (distinct - 1) + (loClosed ? 1 : 0) + (hiClosed ? 1 : 0) - 1;
      return Math.max(0, Math.min(1, values / distinct));
    }
  }

  /** The share of the values in {@code range} of a column with these statistics (for tests). */
  static double share(double min, double max, long distinct, Range<Double> range) {
    return new Stats(min, max, distinct, 1).share(range);
  }
}
