package org.spillway.adapter;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.ImmutableBitSet;
import org.checkerframework.checker.nullness.qual.Nullable;

import java.math.BigDecimal;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.WeakHashMap;

/**
 * Decides at plan time, per SUM (or $SUM0) of a DECIMAL argument, whether its value can exceed the scaled 64-bit
 * integer Spillway holds decimals in. The bound of |SUM| is (at most how many rows the aggregate reads:
 * {@link SpillwayRowBounds}) x (the largest |argument|: {@link SpillwayValueBounds}, or the 64-bit limit where
 * nothing bounds it), in units of the argument's scale. A sum whose bound, times {@link #MARGIN}, stays within
 * 2^63 - 1 keeps its 64-bit result (with the run-time overflow check as the safety net); any other is a wide sum:
 * accumulated in 128 bits on either device, a BIG_DECIMAL value from there on (EXPLAIN: {@code wideSums} on the
 * aggregate). TPC-H Q1's sum_charge is narrow at SF 10 (6.0e7 rows x 113,345.46 x 10^6 = 6.8e18) and wide at SF 100.
 */
final class SpillwaySumWidth {
  /** The largest unscaled |value| of a 64-bit decimal. */
  static final BigDecimal LIMIT = BigDecimal.valueOf(Long.MAX_VALUE);
  /**
   * A sum is narrow only if its bound times this stays within {@link #LIMIT}: room for a table that grew under a
   * cached plan and for the approximate key statistics of join bounds.
   */
  static final BigDecimal MARGIN = new BigDecimal("1.25");

  /** Decisions of aggregates that are not Spillway nodes (those carry theirs), asked for again while planning. */
  private static final Map<Aggregate, ImmutableBitSet> DECISIONS = Collections.synchronizedMap(new WeakHashMap<>());

  private SpillwaySumWidth() {}

  /** The positions (in the call list) of the aggregate's wide sums. */
  static ImmutableBitSet wideSums(Aggregate aggregate) {
    if (aggregate instanceof SpillwayAggregate spillway) {
      return spillway.wideSums();
    }
    return DECISIONS.computeIfAbsent(aggregate, a -> analyze(a.getInput(), a.getAggCallList()));
  }

  /** The positions of the calls over {@code input} that are wide sums. */
  static ImmutableBitSet analyze(RelNode input, List<AggregateCall> calls) {
    ImmutableBitSet.Builder wide = ImmutableBitSet.builder();
    SpillwayRowBounds rows = new SpillwayRowBounds(input.getCluster().getMetadataQuery());
    SpillwayValueBounds values = new SpillwayValueBounds(rows);
    for (int c = 0; c < calls.size(); c++) {
      if (isDecimalSum(calls.get(c), input)) {
        BigDecimal bound = bound(rows, values, input, calls.get(c).getArgList().get(0));
        if (bound == null || bound.multiply(MARGIN).compareTo(LIMIT) > 0) {
          wide.set(c);
        }
      }
    }
    return wide.build();
  }

  private static boolean isDecimalSum(AggregateCall call, RelNode input) {
    SqlKind kind = call.getAggregation().getKind();
    return (kind == SqlKind.SUM || kind == SqlKind.SUM0) && call.getArgList().size() == 1
        && argumentType(input, call.getArgList().get(0)).getSqlTypeName() == SqlTypeName.DECIMAL;
  }

  private static RelDataType argumentType(RelNode input, int field) {
    return input.getRowType().getFieldList().get(field).getType();
  }

  /** The largest unscaled |SUM| of field {@code argument} over {@code input}'s rows; null when unbounded. */
  static @Nullable BigDecimal bound(SpillwayRowBounds rows, SpillwayValueBounds values, RelNode input, int argument) {
    double count = rows.maxRows(input);
    if (Double.isInfinite(count)) {
      return null;
    }
    SpillwayValueBounds.Interval range = values.of(input, argument);
    int scale = argumentType(input, argument).getScale();
    BigDecimal largest = range == null ? LIMIT : range.maxAbs().movePointRight(scale).min(LIMIT);
    return SpillwayValueBounds.sum(new SpillwayValueBounds.Interval(largest.negate(), largest), count).high();
  }

  /** EXPLAIN's list of the wide sums: their output fields, {@code $5, $7}. */
  static String label(int groupCount, ImmutableBitSet wide) {
    StringJoiner out = new StringJoiner(", ");
    wide.forEach(c -> out.add("$" + (groupCount + c)));
    return out.toString();
  }

  /**
   * What the bound analysis assumes in plan tests (never otherwise): every table holding {@code rowScale} times its
   * rows, and no column having statistics when {@code noStatistics}.
   */
  record Assumption(double rowScale, boolean noStatistics) {
    private static final Assumption NONE = new Assumption(1, false);
    private static volatile Assumption current = NONE;

    static Assumption current() {
      return current;
    }

    /** Plans with this assumption until the returned handle is closed (tests only). */
    AutoCloseable assume() {
      current = this;
      DECISIONS.clear();
      return () -> {
        current = NONE;
        DECISIONS.clear();
      };
    }
  }
}
