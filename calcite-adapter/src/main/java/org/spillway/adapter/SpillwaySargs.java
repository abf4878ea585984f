package org.spillway.adapter;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUnknownAs;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.Sarg;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.vector.ExprType;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Turns Calcite's search arguments (BETWEEN, IN, ranges) and comparisons with dictionary text into inclusive
 * ranges of long-lane values: scaled decimals, day numbers or dictionary codes.
 */
final class SpillwaySargs {
  private SpillwaySargs() {}

  static Expr search(SpillwayRexTranslator translator, RexNode operandRex, RexLiteral sargLiteral)
      throws SpillwayUnsupportedException {
    Sarg<?> sarg = sargLiteral.getValueAs(Sarg.class);
    SpillwayField dictionaryField = translator.dictionaryColumn(operandRex);
    Expr operand = translator.translateOperand(operandRex);
    ExprType type = operand.type();
    if (type.kind() == ExprType.Kind.TEXT) {
      return textSearch(operand, sarg);
    }
    if (!type.isLong() || type.kind() == ExprType.Kind.BOOLEAN
        || (type.kind() == ExprType.Kind.STRING && dictionaryField == null)) {
      throw new SpillwayUnsupportedException("SEARCH over " + type + " in " + operandRex);
    }
    List<String> dictionary = dictionaryField == null ? null : translator.dictionary(dictionaryField);
    List<long[]> ranges = new ArrayList<>();
    for (Range<?> range : sarg.rangeSet.asRanges()) {
      long lo = Long.MIN_VALUE;
      long hi = Long.MAX_VALUE;
      if (range.hasLowerBound()) {
        lo = bound(range.lowerEndpoint(), range.lowerBoundType() == BoundType.CLOSED, true, type, dictionary);
      }
      if (range.hasUpperBound()) {
        hi = bound(range.upperEndpoint(), range.upperBoundType() == BoundType.CLOSED, false, type, dictionary);
      }
      if (lo <= hi) {
        ranges.add(new long[] {lo, hi});
      }
    }
    Boolean nullAs = sarg.nullAs == RexUnknownAs.UNKNOWN ? null : sarg.nullAs == RexUnknownAs.TRUE;
    return inRanges(operand, ranges, nullAs);
  }

  /**
   * SEARCH over plain text: the comparisons Calcite expands it into (String.equals and compareTo in its
   * generated code), OR-ed over the ranges; a NULL operand gives what the Sarg says.
   */
  private static Expr textSearch(Expr operand, Sarg<?> sarg) throws SpillwayUnsupportedException {
    List<Expr> ranges = new ArrayList<>();
    for (Range<?> range : sarg.rangeSet.asRanges()) {
      List<Expr> bounds = new ArrayList<>();
      if (range.hasLowerBound() && range.hasUpperBound() && range.lowerEndpoint().equals(range.upperEndpoint())) {
        bounds.add(new Expr.Compare(Expr.CompareOp.EQ, operand, textBound(range.lowerEndpoint())));
      } else {
        if (range.hasLowerBound()) {
          bounds.add(new Expr.Compare(range.lowerBoundType() == BoundType.CLOSED ? Expr.CompareOp.GE
              : Expr.CompareOp.GT, operand, textBound(range.lowerEndpoint())));
        }
        if (range.hasUpperBound()) {
          bounds.add(new Expr.Compare(range.upperBoundType() == BoundType.CLOSED ? Expr.CompareOp.LE
              : Expr.CompareOp.LT, operand, textBound(range.upperEndpoint())));
        }
      }
      ranges.add(bounds.isEmpty() ? new Expr.IsNull(operand, true) : bounds.size() == 1 ? bounds.get(0)
          : new Expr.Logical(true, bounds));
    }
    Expr any = ranges.size() == 1 ? ranges.get(0)
        : new Expr.Logical(false, ranges.isEmpty() ? List.of(new Expr.Literal(0L, ExprType.BOOLEAN)) : ranges);
    return switch (sarg.nullAs) {
      case TRUE -> new Expr.Logical(false, List.of(new Expr.IsNull(operand, false), any));
      case FALSE -> new Expr.Logical(true, List.of(new Expr.IsNull(operand, true), any));
      default -> any;
    };
  }

  private static Expr textBound(Object endpoint) throws SpillwayUnsupportedException {
    if (!(endpoint instanceof NlsString text)) {
      throw new SpillwayUnsupportedException("text range bound " + endpoint);
    }
    return new Expr.Literal(text.getValue(), ExprType.TEXT);
  }

  /** The smallest (lower) or largest (upper) long-lane value inside a range endpoint. */
  private static long bound(Object endpoint, boolean closed, boolean lower, ExprType type, List<String> dictionary)
      throws SpillwayUnsupportedException {
    if (dictionary != null) {
      String s = ((NlsString) endpoint).getValue();
      int firstAtLeast = firstIndex(dictionary, s, false);
      int firstAbove = firstIndex(dictionary, s, true);
      return lower ? (closed ? firstAtLeast : firstAbove) : (closed ? firstAbove - 1 : firstAtLeast - 1);
    }
    if (type.kind() == ExprType.Kind.DATE) {
      if (!(endpoint instanceof DateString date)) {
        throw new SpillwayUnsupportedException("DATE range bound " + endpoint);
      }
      long day = date.getDaysSinceEpoch();
      return closed ? day : lower ? day + 1 : day - 1;
    }
    if (!(endpoint instanceof BigDecimal) && !(endpoint instanceof Number)) {
      throw new SpillwayUnsupportedException("range bound " + endpoint + " for " + type);
    }
    BigDecimal scaled = new BigDecimal(endpoint.toString()).movePointRight(type.scale());
    // Values are integers in the long lane: round a fractional bound inward, step an open bound by one.
    BigDecimal inward = scaled.setScale(0, lower ? RoundingMode.CEILING : RoundingMode.FLOOR);
    if (!closed && inward.compareTo(scaled) == 0) {
      inward = lower ? inward.add(BigDecimal.ONE) : inward.subtract(BigDecimal.ONE);
    }
    if (inward.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) <= 0) {
      return Long.MIN_VALUE;
    }
    return inward.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : inward.longValueExact();
  }

  /** A comparison of dictionary codes with a text literal, as code ranges. */
  static Expr textComparison(Expr column, SqlKind kind, String text, List<String> dictionary) {
    long firstAtLeast = firstIndex(dictionary, text, false);
    long firstAbove = firstIndex(dictionary, text, true);
    long min = Long.MIN_VALUE;
    long max = Long.MAX_VALUE;
    List<long[]> ranges = switch (kind) {
      case EQUALS -> List.<long[]>of(new long[] {firstAtLeast, firstAbove - 1});
      case NOT_EQUALS -> List.of(new long[] {min, firstAtLeast - 1}, new long[] {firstAbove, max});
      case LESS_THAN -> List.<long[]>of(new long[] {min, firstAtLeast - 1});
      case LESS_THAN_OR_EQUAL -> List.<long[]>of(new long[] {min, firstAbove - 1});
      case GREATER_THAN -> List.<long[]>of(new long[] {firstAbove, max});
      default -> List.<long[]>of(new long[] {firstAtLeast, max});
    };
    List<long[]> nonEmpty = new ArrayList<>();
    for (long[] r : ranges) {
      if (r[0] <= r[1]) {
        nonEmpty.add(r);
      }
    }
    return inRanges(column, nonEmpty, null);
  }

  /** {@code column LIKE 'prefix%'}: the codes of the strings that start with the prefix are contiguous. */
  static Expr textPrefix(Expr column, String prefix, List<String> dictionary) {
    int first = firstIndex(dictionary, prefix, false);
    int lo = first;
    int hi = dictionary.size();
    while (lo < hi) {  // first code at or after `first` whose string does not start with the prefix
      int mid = (lo + hi) >>> 1;
      if (dictionary.get(mid).startsWith(prefix)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return inRanges(column, first < lo ? List.<long[]>of(new long[] {first, lo - 1}) : List.of(), null);
  }

  /** {@code column LIKE pattern} in general: the codes of the dictionary strings the pattern matches, as runs. */
  static Expr textMatching(Expr column, Pattern regex, List<String> dictionary) {
    List<long[]> ranges = new ArrayList<>();
    for (int code = 0; code < dictionary.size(); code++) {
      if (regex.matcher(dictionary.get(code)).matches()) {
        long[] last = ranges.isEmpty() ? null : ranges.get(ranges.size() - 1);
        if (last != null && last[1] == code - 1) {
          last[1] = code;
        } else {
          ranges.add(new long[] {code, code});
        }
      }
    }
    return inRanges(column, ranges, null);
  }

  /** The first index whose string is at least (or, if {@code strictlyAbove}, above) the given one. */
  private static int firstIndex(List<String> sorted, String s, boolean strictlyAbove) {
    int lo = 0;
    int hi = sorted.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      int c = sorted.get(mid).compareTo(s);
      if (c < 0 || (strictlyAbove && c == 0)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static Expr inRanges(Expr operand, List<long[]> ranges, Boolean nullAs) {
    long[] lows = new long[ranges.size()];
    long[] highs = new long[ranges.size()];
    for (int i = 0; i < ranges.size(); i++) {
      lows[i] = ranges.get(i)[0];
      highs[i] = ranges.get(i)[1];
    }
    return new Expr.InRanges(operand, lows, highs, nullAs);
  }
}
