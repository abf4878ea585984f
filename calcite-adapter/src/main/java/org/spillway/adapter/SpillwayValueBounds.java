package org.spillway.adapter;

import org.apache.calcite.plan.hep.HepRelVertex;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.rules.MultiJoin;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.spillway.storage.ColumnStatistics;
import org.spillway.storage.ColumnType;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Interval arithmetic over a plan, for {@link SpillwaySumWidth}: the range of the non-NULL values of a field, from
 * the catalog's column min and max (or the column type's limits where the catalog has none), literal values, and
 * +, -, *, CAST and CASE applied to intervals exactly (BigDecimal ends). A field whose range nothing bounds (a
 * quotient, an unknown function or operator) is unbounded: null. {@link Interval#EMPTY} is the range of a field
 * that is always NULL, which adds nothing to a sum.
 */
final class SpillwayValueBounds {
  /** A closed range [low, high] of exact values; EMPTY when there is no value. */
  record Interval(BigDecimal low, BigDecimal high) {
    static final Interval EMPTY = new Interval(BigDecimal.ONE, BigDecimal.ZERO);

    static Interval of(BigDecimal value) {
      return new Interval(value, value);
    }

    boolean isEmpty() {
      return low.compareTo(high) > 0;
    }

    /** The largest magnitude of a value in the range (0 when empty). */
    BigDecimal maxAbs() {
      return isEmpty() ? BigDecimal.ZERO : low.abs().max(high.abs());
    }

    /** The smallest range holding both. */
    Interval hull(Interval other) {
      return isEmpty() ? other : other.isEmpty() ? this : new Interval(low.min(other.low), high.max(other.high));
    }

    Interval plus(Interval o) {
      return isEmpty() || o.isEmpty() ? EMPTY : new Interval(low.add(o.low), high.add(o.high));
    }

    Interval negate() {
      return isEmpty() ? EMPTY : new Interval(high.negate(), low.negate());
    }

    Interval times(Interval o) {
      if (isEmpty() || o.isEmpty()) {
        return EMPTY;
      }
      List<BigDecimal> p = List.of(low.multiply(o.low), low.multiply(o.high), high.multiply(o.low),
          high.multiply(o.high));
      return new Interval(p.stream().reduce(BigDecimal::min).orElseThrow(), p.stream().reduce(BigDecimal::max)
          .orElseThrow());
    }

    /** The range after rounding toward zero to {@code scale} digits (a monotone map: the ends map to the ends). */
    Interval roundedDown(int scale) {
      return isEmpty() ? EMPTY : new Interval(low.setScale(scale, RoundingMode.DOWN),
          high.setScale(scale, RoundingMode.DOWN));
    }

    /** The range of values of a column of {@code type} (null if not an exact numeric type). */
    static @Nullable Interval ofType(ColumnType type) {
      return switch (type.kind()) {
        case INTEGER -> new Interval(BigDecimal.valueOf(Integer.MIN_VALUE), BigDecimal.valueOf(Integer.MAX_VALUE));
        case BIGINT -> new Interval(BigDecimal.valueOf(Long.MIN_VALUE), BigDecimal.valueOf(Long.MAX_VALUE));
        case DECIMAL -> {  // the catalog stores at most precision digits
          BigDecimal max = BigDecimal.TEN.pow(type.precision()).subtract(BigDecimal.ONE).movePointLeft(type.scale());
          yield new Interval(max.negate(), max);
        }
        default -> null;
      };
    }
  }

  private final SpillwayRowBounds rows;
  private final Map<RelNode, Map<Integer, Interval>> memo = new HashMap<>();
  /** Memoized fields with no bound (a map cannot hold null values distinctly). */
  private final Map<RelNode, Set<Integer>> unbounded = new HashMap<>();
  private final Set<RelNode> visiting = new HashSet<>();

  SpillwayValueBounds(SpillwayRowBounds rows) {
    this.rows = rows;
  }

  /** The range of field {@code field} of {@code rel}, or null when unbounded. */
  @Nullable Interval of(RelNode rel, int field) {
    Interval known = memo.getOrDefault(rel, Map.of()).get(field);
    if (known != null || unbounded.getOrDefault(rel, Set.of()).contains(field)) {
      return known;
    }
    if (!visiting.add(rel)) {
      return null;  // a cycle of the planner's memo
    }
    Interval range = compute(rel, field);
    visiting.remove(rel);
    if (range == null) {
      unbounded.computeIfAbsent(rel, r -> new HashSet<>()).add(field);
    } else {
      memo.computeIfAbsent(rel, r -> new HashMap<>()).put(field, range);
    }
    return range;
  }

  private @Nullable Interval compute(RelNode rel, int field) {
    if (rel instanceof RelSubset subset) {
      RelNode original = subset.getOriginal();
      Interval range = original == null ? null : of(original, field);
      for (int i = 0; range == null && i < subset.getRelList().size(); i++) {
        range = of(subset.getRelList().get(i), field);
      }
      return range;
    }
    if (rel instanceof HepRelVertex vertex) {
      return of(vertex.getCurrentRel(), field);
    }
    if (rel instanceof SpillwayTableScan scan) {
      return ofColumn(scan, scan.fields()[field]);
    }
    if (rel instanceof Filter || rel instanceof SpillwayToEnumerableConverter) {
      return of(rel.getInput(0), field);
    }
    if (rel instanceof Project project) {
      return of(project.getProjects().get(field), project.getInput());
    }
    if (rel instanceof Join || rel instanceof MultiJoin) {  // the inputs' fields one after the other
      for (RelNode input : rel.getInputs()) {
        int fields = input.getRowType().getFieldCount();
        if (field < fields) {
          return of(input, field);
        }
        field -= fields;
      }
      return null;
    }
    if (rel instanceof Aggregate aggregate) {
      return ofAggregate(aggregate, field);
    }
    return null;
  }

  /** The catalog's min and max of a scanned column; the type's limits without them; EMPTY if it is all NULL. */
  private static @Nullable Interval ofColumn(SpillwayTableScan scan, int column) {
    ColumnType type = scan.spillwayTable().stored().schema().column(column).type();
    if (SpillwaySumWidth.Assumption.current().noStatistics()) {
      return Interval.ofType(type);
    }
    ColumnStatistics stats = scan.spillwayTable().stored().statistics().column(column);
    if (stats.min() == null || stats.max() == null) {
      return stats.nullCount() > 0 ? Interval.EMPTY : Interval.ofType(type);
    }
    BigDecimal min = exact(stats.min());
    BigDecimal max = exact(stats.max());
    return min == null || max == null ? Interval.ofType(type) : new Interval(min, max);
  }

  private @Nullable Interval ofAggregate(Aggregate aggregate, int field) {
    int keys = aggregate.getGroupCount();
    if (field < keys) {
      return of(aggregate.getInput(), aggregate.getGroupSet().nth(field));
    }
    AggregateCall call = aggregate.getAggCallList().get(field - keys);
    Interval argument = call.getArgList().size() == 1 ? of(aggregate.getInput(), call.getArgList().get(0)) : null;
    return switch (call.getAggregation().getKind()) {
      case MIN, MAX, ANY_VALUE, SINGLE_VALUE, AVG -> argument;
      case COUNT -> new Interval(BigDecimal.ZERO, upTo(rows.maxRows(aggregate.getInput())));
      case SUM, SUM0 -> argument == null ? null : sum(argument, rows.maxRows(aggregate.getInput()));
      default -> null;
    };
  }

  /** The range of a sum of at most {@code count} values of {@code argument} (null if count is unbounded). */
  static @Nullable Interval sum(Interval argument, double count) {
    if (Double.isInfinite(count)) {
      return null;
    }
    BigDecimal n = upTo(count);
    Interval withZero = argument.hull(Interval.of(BigDecimal.ZERO));
    return new Interval(withZero.low().multiply(n), withZero.high().multiply(n));
  }

  /** The range of an expression over the fields of {@code input}, or null. */
  @Nullable Interval of(RexNode rex, RelNode input) {
    if (rex instanceof RexInputRef ref) {
      return of(input, ref.getIndex());
    }
    if (rex instanceof RexLiteral literal) {
      if (literal.isNull()) {
        return Interval.EMPTY;
      }
      return SqlTypeName.NUMERIC_TYPES.contains(literal.getType().getSqlTypeName())
          ? Interval.of(literal.getValueAs(BigDecimal.class)) : null;
    }
    if (!(rex instanceof RexCall call)) {
      return null;
    }
    List<RexNode> ops = call.getOperands();
    SqlKind kind = SpillwayCheckedArithmetic.plainKind(call.getKind());
    switch (kind) {
      case PLUS, MINUS, TIMES -> {
        Interval l = of(ops.get(0), input);
        Interval r = of(ops.get(1), input);
        if (l == null || r == null) {
          return null;
        }
        return switch (kind) {
          case PLUS -> l.plus(r);
          case MINUS -> l.plus(r.negate());
          default -> l.times(r);
        };
      }
      case MINUS_PREFIX -> {
        Interval x = of(ops.get(0), input);
        return x == null ? null : x.negate();
      }
      case CAST -> {
        Interval x = of(ops.get(0), input);
        SqlTypeName target = call.getType().getSqlTypeName();
        boolean exact = SqlTypeName.INT_TYPES.contains(target) || target == SqlTypeName.DECIMAL;
        return x == null || !exact ? null : x.roundedDown(Math.max(0, call.getType().getScale()));
      }
      case CASE -> {
        List<RexNode> values = new ArrayList<>();  // WHEN c1 THEN v1 ... ELSE e: the odd operands, then the last
        for (int i = 1; i < ops.size() - 1; i += 2) {
          values.add(ops.get(i));
        }
        values.add(ops.get(ops.size() - 1));
        Interval range = Interval.EMPTY;
        for (RexNode value : values) {
          Interval branch = of(value, input);
          if (branch == null) {
            return null;
          }
          range = range.hull(branch);
        }
        return range;
      }
      default -> {
        return null;
      }
    }
  }

  /** A catalog statistic as an exact number, or null if it is not one (dates, text, doubles). */
  private static @Nullable BigDecimal exact(Object value) {
    if (value instanceof Integer || value instanceof Long) {
      return BigDecimal.valueOf(((Number) value).longValue());
    }
    return value instanceof BigDecimal decimal ? decimal : null;
  }

  /** A row count bound as an exact integer, rounded up. */
  private static BigDecimal upTo(double count) {
    return BigDecimal.valueOf(count).setScale(0, RoundingMode.CEILING);
  }
}
