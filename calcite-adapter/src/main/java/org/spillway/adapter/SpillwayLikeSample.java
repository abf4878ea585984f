package org.spillway.adapter;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.spillway.gpu.expr.SqlLikePatterns;
import org.spillway.storage.ColumnReader;
import org.spillway.storage.StoredTable;

/**
 * The selectivity of {@code column LIKE 'pattern'} (or NOT LIKE) measured on an evenly spaced sample of the
 * column's rows. No statistic describes how many strings a pattern matches, and Calcite's fixed guess (a quarter)
 * is off by orders of magnitude both ways ({@code p_name LIKE 'forest%'} keeps about 1%, {@code NOT LIKE
 * '%special%requests%'} about 99%), which decides join orders: TPC-H Q9 joined lineitem with partsupp before the
 * 5% of parts named green. The table's data is in memory, so the sample costs microseconds.
 */
final class SpillwayLikeSample {
  /** Rows sampled: a share of 1% is then measured within about a third of itself. */
  static final int SAMPLE_ROWS = 4096;

  private SpillwayLikeSample() {}

  /**
   * The share of the rows that {@code conjunct} keeps when it is a case-sensitive LIKE or NOT LIKE of a plain
   * text column with a literal pattern (field {@code i} is column {@code columns[i]} of {@code table}); null
   * for anything else or an empty table.
   */
  static @Nullable Double selectivity(RexNode conjunct, StoredTable table, int[] columns) {
    boolean negated = false;
    RexNode node = conjunct;
    if (node.getKind() == SqlKind.NOT && node instanceof RexCall not) {
      negated = true;
      node = not.getOperands().get(0);
    }
    if (!(node instanceof RexCall like) || !(like.getOperator() instanceof SqlLikeOperator operator)
        || !operator.isCaseSensitive() || like.getKind() != SqlKind.LIKE) {
      return null;
    }
    negated ^= operator.isNegated();
    List<RexNode> operands = like.getOperands();
    if (!(operands.get(0) instanceof RexInputRef ref) || ref.getIndex() >= columns.length
        || columns[ref.getIndex()] < 0 || !(operands.get(1) instanceof RexLiteral patternLiteral)) {
      return null;
    }
    String pattern = patternLiteral.getValueAs(String.class);
    String escape = operands.size() > 2 && operands.get(2) instanceof RexLiteral e ? e.getValueAs(String.class) : null;
    if (pattern == null || operands.size() > 2 && escape == null) {
      return null;
    }
    int column = columns[ref.getIndex()];
    if (table.rowCount() == 0 || !table.schema().column(column).type().kind().isText()) {
      return null;
    }
    Double kept = matchedShare(table, column, pattern, escape);
    return kept == null ? null : negated ? nonNullShare(table, column) - kept : kept;
  }

  /** The share of all rows (NULLs count as not matching) whose value matches, over the sample. */
  private static @Nullable Double matchedShare(StoredTable table, int column, String pattern, String escape) {
    String[] pieces = SqlLikePatterns.pieces(pattern, escape);
    Pattern regex;
    try {
      regex = pieces == null ? SqlLikePatterns.compile(pattern, escape) : null;
    } catch (IllegalArgumentException e) {
      return null;  // the query reports the bad pattern when it runs
    }
    long rows = table.rowCount();
    int samples = (int) Math.min(rows, SAMPLE_ROWS);
    double step = (double) rows / samples;
    int matched = 0;
    int batch = 0;
    long batchStart = 0;
    ColumnReader reader = table.reader(0, column);
    for (int i = 0; i < samples; i++) {
      long row = (long) (i * step);
      while (row >= batchStart + reader.size()) {
        batchStart += reader.size();
        reader = table.reader(++batch, column);
      }
      int r = (int) (row - batchStart);
      if (!reader.isNull(r)) {
        String value = String.valueOf(reader.get(r));
        if (pieces != null ? SqlLikePatterns.matchesPieces(pieces, value) : regex.matcher(value).matches()) {
          matched++;
        }
      }
    }
    // No match in the sample says the share is below about one in the sample's size, not that it is zero.
    return Math.max(matched, 0.5) / samples;
  }

  private static double nonNullShare(StoredTable table, int column) {
    return 1 - table.statistics().column(column).nullCount() / (double) table.rowCount();
  }
}
