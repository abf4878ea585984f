package org.spillway.gpu.pipeline;

import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.VectorEvaluator;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.Arrays;
import java.util.function.IntFunction;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * A filter condition evaluated as selection vectors, as the selection primitives of MonetDB/X100 (Boncz,
 * Zukowski, Nes: "MonetDB/X100: Hyper-Pipelining Query Execution", CIDR 2005) and DuckDB's vectorized filters
 * do: the conjuncts of an AND run one after the other, each reading only the rows the ones before it kept and
 * refining their selection in place, with no boolean vector per predicate.
 *
 * <p>Comparisons of long-lane columns with literals or with each other, range tests ({@link Expr.InRanges}),
 * IS [NOT] NULL of a column, BOOLEAN columns and literals have select loops of their own; they read a column the
 * morsel has not loaded straight from its Arrow buffer, at the selected rows only. So do [NOT] LIKE, =, <> and IN
 * of plain text against literals ({@link TextSelection}), on the UTF-8 bytes. Anything else (OR, CASE,
 * arithmetic, doubles, text held as strings) is evaluated by {@link VectorEvaluator} over the selected rows. A row is kept iff the
 * condition is TRUE (NULL drops it, Kleene's AND agrees), and a conjunct never runs on a row an earlier one
 * dropped, as Calcite's generated code guarantees.
 */
final class SelectionFilter {
  private SelectionFilter() {}

  /**
   * Refines the selection {@code s.positions[0 .. count-1]} (ascending positions among the morsel's rows) to the
   * rows where {@code condition} is TRUE, in place; returns how many remain.
   */
  static int select(Expr condition, Morsel morsel, SelectionScratch s, int count) {
    if (count == 0) {
      return 0;
    }
    if (condition instanceof Expr.Logical l && l.and()) {
      for (Expr conjunct : l.operands()) {
        count = select(conjunct, morsel, s, count);
        if (count == 0) {
          return 0;
        }
      }
      return count;
    }
    if (condition instanceof Expr.Literal literal) {
      return literal.value() != null && ((Number) literal.value()).longValue() == 1 ? count : 0;
    }
    if (condition instanceof Expr.Column c && c.type().kind() == ExprType.Kind.BOOLEAN) {
      Lane lane = read(morsel, c.index(), s, count, s.left, s.leftNulls);
      return selectRanges(lane, new long[] {1}, new long[] {1}, null, s.positions, count);
    }
    if (condition instanceof Expr.InRanges r && columnOf(r.operand()) != null) {
      Lane lane = read(morsel, columnOf(r.operand()).index(), s, count, s.left, s.leftNulls);
      return selectRanges(lane, r.lows(), r.highs(), r.nullAs(), s.positions, count);
    }
    if (condition instanceof Expr.Not not && not.operand() instanceof Expr.InRanges r && columnOf(r.operand()) != null) {
      // NOT LIKE over dictionary codes (Q16's p_type): the complement ranges, NOT of NULL still NULL
      long[][] outside = complement(r.lows(), r.highs());
      if (outside != null) {
        Lane lane = read(morsel, columnOf(r.operand()).index(), s, count, s.left, s.leftNulls);
        Boolean nullAs = r.nullAs() == null ? null : !r.nullAs();
        return selectRanges(lane, outside[0], outside[1], nullAs, s.positions, count);
      }
    }
    if (condition instanceof Expr.IsNull x && x.operand() instanceof Expr.Column c) {
      return selectNulls(morsel, c.index(), x.negated(), s, count);
    }
    if (condition instanceof Expr.Compare c && c.left().type().isLong()) {
      Expr.Column left = columnOf(c.left());
      Expr.Column right = columnOf(c.right());
      if (left != null && right instanceof Expr.Column) {
        Lane a = read(morsel, left.index(), s, count, s.left, s.leftNulls);
        Lane b = read(morsel, right.index(), s, count, s.right, s.rightNulls);
        return selectColumns(c.op(), a, b, s, count);
      }
      if (left != null && c.right() instanceof Expr.Literal lit) {
        return selectLiteral(c.op(), morsel, left, lit, s, count);
      }
      if (right != null && c.left() instanceof Expr.Literal lit) {
        return selectLiteral(flipped(c.op()), morsel, right, lit, s, count);
      }
    }
    TextSelection text = TextSelection.of(condition);
    if (text != null && morsel.loaded(text.column()) == null
        && morsel.source(text.column()) instanceof VarCharVector source) {
      return text.select(source, morsel.offset(), sourceRows(morsel, s, count), s, count);
    }
    return selectEvaluated(condition, morsel, s, count);
  }

  /** The column an operand reads unchanged: a column reference or a cast that keeps its values. */
  private static Expr.Column columnOf(Expr e) {
    if (e instanceof Expr.Cast cast && cast.preservesValue()) {
      e = cast.operand();
    }
    return e instanceof Expr.Column c && c.type().isLong() ? c : null;
  }

  /** The operator with its operands swapped: {@code lit < x} is {@code x > lit}. */
  private static Expr.CompareOp flipped(Expr.CompareOp op) {
    return switch (op) {
      case EQ, NE -> op;
      case LT -> Expr.CompareOp.GT;
      case LE -> Expr.CompareOp.GE;
      case GT -> Expr.CompareOp.LT;
      case GE -> Expr.CompareOp.LE;
    };
  }

  /** A comparison with a constant is a test against at most two ranges of the long lane. */
  private static int selectLiteral(Expr.CompareOp op, Morsel morsel, Expr.Column column, Expr.Literal literal,
      SelectionScratch s, int count) {
    if (literal.value() == null) {
      return 0;  // x op NULL is UNKNOWN for every row
    }
    long c = ((Number) literal.value()).longValue();
    long min = Long.MIN_VALUE;
    long max = Long.MAX_VALUE;
    long[][] ranges = switch (op) {
      case EQ -> new long[][] {{c}, {c}};
      case LE -> new long[][] {{min}, {c}};
      case GE -> new long[][] {{c}, {max}};
      case LT -> c == min ? new long[][] {{}, {}} : new long[][] {{min}, {c - 1}};
      case GT -> c == max ? new long[][] {{}, {}} : new long[][] {{c + 1}, {max}};
      case NE -> c == min ? new long[][] {{c + 1}, {max}} : c == max ? new long[][] {{min}, {c - 1}}
          : new long[][] {{min, c + 1}, {c - 1, max}};
    };
    Lane lane = read(morsel, column.index(), s, count, s.left, s.leftNulls);
    return selectRanges(lane, ranges[0], ranges[1], null, s.positions, count);
  }

  /**
   * Keeps the rows whose value lies in one of the inclusive ranges; a NULL row is kept iff {@code nullAs} is
   * TRUE. Branch-free: each position is written and kept only if its row qualifies.
   */
  private static int selectRanges(Lane lane, long[] lows, long[] highs, Boolean nullAs, int[] positions, int count) {
    long[] v = lane.values;
    boolean[] nulls = lane.nulls;
    int kept = 0;
    if (lows.length == 1 && nulls == null) {
      if (lows[0] > highs[0]) {
        return 0;  // an empty range
      }
      // x in [lo, hi] as one unsigned comparison: x - lo wraps above hi - lo for x below lo
      long lo = lows[0];
      long width = highs[0] - lo;
      for (int k = 0; k < count; k++) {
        positions[kept] = positions[k];
        kept += Long.compareUnsigned(v[k] - lo, width) <= 0 ? 1 : 0;
      }
      return kept;
    }
    if (lows.length == 2 && nulls == null && lows[0] == Long.MIN_VALUE && highs[1] == Long.MAX_VALUE
        && highs[0] < lows[1] - 1) {
      // all but one gap (x <> c, NOT LIKE over a prefix's codes): one unsigned comparison, as for one range
      long gap = highs[0] + 1;
      long width = lows[1] - 1 - gap;
      for (int k = 0; k < count; k++) {
        positions[kept] = positions[k];
        kept += Long.compareUnsigned(v[k] - gap, width) > 0 ? 1 : 0;
      }
      return kept;
    }
    int nullKept = Boolean.TRUE.equals(nullAs) ? 1 : 0;
    long[] bits = rangeBits(lows, highs);
    if (bits != null) {
      // an IN list of small values (Q16's eight sizes): one bit test per row instead of a test per range
      long lo = lows[0];
      long span = (long) bits.length << 6;
      for (int k = 0; k < count; k++) {
        long d = v[k] - lo;
        int hit = Long.compareUnsigned(d, span) < 0 ? (int) (bits[(int) (d >>> 6)] >>> d) & 1 : 0;
        positions[kept] = positions[k];
        kept += nulls != null && nulls[k] ? nullKept : hit;
      }
      return kept;
    }
    for (int k = 0; k < count; k++) {
      long x = v[k];
      int hit = 0;
      for (int r = 0; r < lows.length; r++) {
        hit |= (x >= lows[r]) & (x <= highs[r]) ? 1 : 0;
      }
      positions[kept] = positions[k];
      kept += nulls != null && nulls[k] ? nullKept : hit;
    }
    return kept;
  }

  /**
   * The ranges of the long values outside ascending, disjoint inclusive ranges ({@code {lows, highs}}), or null where
   * the ranges are not ascending and disjoint.
   */
  static long[][] complement(long[] lows, long[] highs) {
    int n = lows.length;
    long[] outLows = new long[n + 1];
    long[] outHighs = new long[n + 1];
    int out = 0;
    long next = Long.MIN_VALUE;  // the least value no range before has covered
    boolean open = true;         // false once a range reached Long.MAX_VALUE
    for (int r = 0; r < n; r++) {
      if (lows[r] > highs[r] || r > 0 && lows[r] <= highs[r - 1]) {
        return null;
      }
      if (lows[r] > next) {
        outLows[out] = next;
        outHighs[out++] = lows[r] - 1;
      }
      open = highs[r] != Long.MAX_VALUE;
      next = highs[r] + 1;
    }
    if (open) {
      outLows[out] = next;
      outHighs[out++] = Long.MAX_VALUE;
    }
    return new long[][] {Arrays.copyOf(outLows, out), Arrays.copyOf(outHighs, out)};
  }

  /** The most values {@link #rangeBits} spans with one bit each. */
  static final int MAX_BITMAP_SPAN = 1 << 12;

  /**
   * The values of several ascending, disjoint ranges as bits from {@code lows[0]} on, where they span at most
   * {@link #MAX_BITMAP_SPAN} values; else null (and for a single range, which one comparison tests).
   */
  static long[] rangeBits(long[] lows, long[] highs) {
    int n = lows.length;
    if (n < 2) {
      return null;
    }
    for (int r = 0; r < n; r++) {
      if (lows[r] > highs[r] || r > 0 && lows[r] <= highs[r - 1]) {
        return null;
      }
    }
    long lo = lows[0];
    long span = highs[n - 1] - lo;  // may overflow for huge ranges: then negative, refused below
    if (span < 0 || span >= MAX_BITMAP_SPAN) {
      return null;
    }
    long[] bits = new long[(int) (span >>> 6) + 1];
    for (int r = 0; r < n; r++) {
      for (long x = lows[r]; x <= highs[r]; x++) {
        bits[(int) ((x - lo) >>> 6)] |= 1L << (x - lo);
      }
    }
    return bits;
  }

  private static int selectColumns(Expr.CompareOp op, Lane left, Lane right, SelectionScratch s, int count) {
    boolean swap = op == Expr.CompareOp.GT || op == Expr.CompareOp.GE;
    long[] a = swap ? right.values : left.values;
    long[] b = swap ? left.values : right.values;
    int negate = op == Expr.CompareOp.NE ? 1 : 0;
    boolean[] nulls = unionOfNulls(left, right, s, count);
    int[] positions = s.positions;
    int kept = 0;
    switch (op) {
      case LT, GT -> {
        for (int k = 0; k < count; k++) {
          positions[kept] = positions[k];
          kept += (a[k] < b[k] ? 1 : 0) & (nulls != null && nulls[k] ? 0 : 1);
        }
      }
      case LE, GE -> {
        for (int k = 0; k < count; k++) {
          positions[kept] = positions[k];
          kept += (a[k] <= b[k] ? 1 : 0) & (nulls != null && nulls[k] ? 0 : 1);
        }
      }
      case EQ, NE -> {
        for (int k = 0; k < count; k++) {
          positions[kept] = positions[k];
          kept += ((a[k] == b[k] ? 1 : 0) ^ negate) & (nulls != null && nulls[k] ? 0 : 1);
        }
      }
    }
    return kept;
  }

  /** The rows where either operand is NULL, or null when neither has one. */
  private static boolean[] unionOfNulls(Lane left, Lane right, SelectionScratch s, int count) {
    if (left.nulls == null || right.nulls == null) {
      return left.nulls != null ? left.nulls : right.nulls;
    }
    // the union goes where it cannot overwrite a morsel's own flags: a scratch buffer that holds an operand's
    boolean[] union = left.nulls == s.leftNulls ? s.leftNulls : right.nulls == s.rightNulls ? s.rightNulls
        : new boolean[count];
    for (int k = 0; k < count; k++) {
      union[k] = left.nulls[k] | right.nulls[k];
    }
    return union;
  }

  private static int selectNulls(Morsel morsel, int column, boolean negated, SelectionScratch s, int count) {
    int[] positions = s.positions;
    boolean dense = count == morsel.rows();
    ColumnVector v = morsel.loaded(column);
    boolean[] nulls;
    if (v != null) {
      nulls = v.nulls;
      if (nulls != null && !dense) {
        for (int k = 0; k < count; k++) {
          s.leftNulls[k] = nulls[positions[k]];
        }
        nulls = s.leftNulls;
      }
    } else {
      FieldVector source = morsel.source(column);
      int[] rows = sourceRows(morsel, s, count);
      nulls = ArrowColumnLoader.readNulls(source, morsel.offset(), rows, count, s.leftNulls) ? s.leftNulls : null;
    }
    if (nulls == null) {
      return negated ? count : 0;
    }
    int flip = negated ? 1 : 0;
    int kept = 0;
    for (int k = 0; k < count; k++) {
      positions[kept] = positions[k];
      kept += (nulls[k] ? 1 : 0) ^ flip;
    }
    return kept;
  }

  /**
   * The general case: the condition evaluated by {@link VectorEvaluator} over the selected rows (the columns
   * it reads gathered, or loaded from the source, at those rows only), then its TRUE rows kept.
   */
  private static int selectEvaluated(Expr condition, Morsel morsel, SelectionScratch s, int count) {
    int[] positions = s.positions;
    IntFunction<ColumnVector> input;
    if (count == morsel.rows()) {
      input = morsel::column;
    } else {
      ColumnVector[] read = new ColumnVector[morsel.columnCount()];
      input = i -> {
        if (read[i] == null) {
          ColumnVector v = morsel.loaded(i);
          read[i] = v != null ? v.gather(positions, count) : ArrowColumnLoader.load(morsel.source(i),
              morsel.sourceType(i), morsel.offset(), sourceRows(morsel, s, count), count);
        }
        return read[i];
      };
    }
    ColumnVector predicate = VectorEvaluator.evaluate(condition, input, count);
    long[] v = predicate.longs;
    boolean[] nulls = predicate.nulls;
    int kept = 0;
    for (int k = 0; k < count; k++) {
      positions[kept] = positions[k];
      kept += nulls != null && nulls[k] ? 0 : (int) v[k];
    }
    return kept;
  }

  /** A long-lane operand at the selected rows: {@code values[k]} (0 where {@code nulls[k]}) is row k's. */
  private record Lane(long[] values, boolean[] nulls) {}

  /**
   * Column {@code column} at the selected rows: the morsel's own arrays while every row is selected, else
   * widened into the scratch buffers, from the morsel's vector or straight from the Arrow source.
   */
  private static Lane read(Morsel morsel, int column, SelectionScratch s, int count, long[] values, boolean[] nulls) {
    ColumnVector v = morsel.loaded(column);
    int[] positions = s.positions;
    if (v != null) {
      if (count == morsel.rows()) {
        return new Lane(v.longs, v.nulls);
      }
      for (int k = 0; k < count; k++) {
        values[k] = v.longs[positions[k]];
      }
      if (v.nulls == null) {
        return new Lane(values, null);
      }
      for (int k = 0; k < count; k++) {
        nulls[k] = v.nulls[positions[k]];
      }
      return new Lane(values, nulls);
    }
    FieldVector source = morsel.source(column);
    int[] rows = sourceRows(morsel, s, count);
    boolean any = ArrowColumnLoader.readNulls(source, morsel.offset(), rows, count, nulls);
    ArrowColumnLoader.readLongs(source, morsel.sourceType(column), morsel.offset(), rows, count, values,
        any ? nulls : null);
    return new Lane(values, any ? nulls : null);
  }

  /**
   * The source rows (relative to the morsel's offset) of the selected positions: the morsel's own selection
   * (null: the identity) while every row is selected, else the composition, in the scratch buffer.
   */
  private static int[] sourceRows(Morsel morsel, SelectionScratch s, int count) {
    int[] selection = morsel.selection();
    if (count == morsel.rows()) {
      return selection;
    }
    int[] positions = s.positions;
    int[] rows = s.sourceRows;
    if (selection == null) {
      return positions;
    }
    for (int k = 0; k < count; k++) {
      rows[k] = selection[positions[k]];
    }
    return rows;
  }
}
