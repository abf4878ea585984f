package org.spillway.adapter;

import com.google.common.collect.Range;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.rules.DateRangeRules;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.Sarg;

import java.math.BigDecimal;

/**
 * Calcite's rewrite of {@code EXTRACT(YEAR FROM d) = 1995} into a range of dates, applied only where every value
 * compared with an EXTRACT lies on the calendar: Calcite's rule fails to plan a year beyond 9999 ("Year out of
 * range") and turns {@code EXTRACT(YEAR FROM d) >= -5} into a range that holds no date (a wrong answer). Elsewhere
 * the filter stays as written and is evaluated as such.
 */
final class SpillwayDateRangeRule extends DateRangeRules.FilterDateRangeRule {
  static final SpillwayDateRangeRule INSTANCE = new SpillwayDateRangeRule();

  private SpillwayDateRangeRule() {
    super(((DateRangeRules.FilterDateRangeRule) DateRangeRules.FILTER_INSTANCE).config);
  }

  @Override public boolean matches(RelOptRuleCall call) {
    Filter filter = call.rel(0);
    return super.matches(call) && onCalendar(filter.getCondition());
  }

  /** Whether every literal compared with an EXTRACT of YEAR, MONTH or DAY in {@code condition} is such a value. */
  static boolean onCalendar(RexNode condition) {
    if (!(condition instanceof RexCall call)) {
      return true;
    }
    TimeUnitRange unit = null;
    for (RexNode operand : call.getOperands()) {
      if (operand.getKind() == SqlKind.EXTRACT && ((RexCall) operand).getOperands().get(0) instanceof RexLiteral flag
          && flag.getValue() instanceof TimeUnitRange extracted) {
        unit = extracted;
      }
    }
    for (RexNode operand : call.getOperands()) {
      if (unit != null && operand instanceof RexLiteral literal && !onCalendar(literal, unit)) {
        return false;
      }
      if (!onCalendar(operand)) {
        return false;
      }
    }
    return true;
  }

  private static boolean onCalendar(RexLiteral literal, TimeUnitRange unit) {
    long high = switch (unit) {
      case YEAR -> 9999;
      case MONTH -> 12;
      case DAY -> 31;
      default -> Long.MAX_VALUE;
    };
    if (high == Long.MAX_VALUE) {
      return true;
    }
    if (literal.getValue() instanceof Sarg<?> sarg) {
      for (Range<?> range : sarg.rangeSet.asRanges()) {
        if (range.hasLowerBound() && !within(range.lowerEndpoint(), high)
            || range.hasUpperBound() && !within(range.upperEndpoint(), high)) {
          return false;
        }
      }
      return true;
    }
    return within(literal.getValueAs(BigDecimal.class), high);
  }

  private static boolean within(Object value, long high) {
    if (!(value instanceof BigDecimal number)) {
      return value == null;
    }
    return number.compareTo(BigDecimal.ONE) >= 0 && number.compareTo(BigDecimal.valueOf(high)) <= 0;
  }
}
