package org.spillway.adapter;

import org.apache.calcite.DataContexts;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexExecutable;
import org.apache.calcite.rex.RexExecutorImpl;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.Program;

import java.time.DateTimeException;
import java.util.List;

/**
 * Rewrites integer {@code + - * /} and negation to Calcite's CHECKED_ operators, so that an integer result that
 * does not fit its type is an error ({@link ArithmeticException}, "integer overflow" or "long overflow") wherever
 * it is computed, never a wrapped value. Spillway's own evaluator has always checked; Calcite's generated code
 * (EnumerableCalc) and its constant folding use Java's wrapping operators for the plain ones; its folding
 * ({@code RexExecutable}) leaves a checked expression that fails unreduced. A constant that overflows fails
 * the statement while it is planned.
 *
 * <p>Likewise a DATE computed by arithmetic (DATE +/- INTERVAL, TIMESTAMPADD) is range-checked by
 * {@link SpillwayDateRange#CHECKED_DATE}: a date beyond 0001-01-01..9999-12-31 is an error ("date out of range",
 * SQLSTATE 22008), never a date printed from a wrapped year.
 *
 * <p>Calcite's own {@code ConvertToChecked} does this for every exact type when the conformance asks for it, but
 * wraps every DECIMAL result in a CAST as well; Spillway's decimal arithmetic checks its 64-bit range itself.
 */
final class SpillwayCheckedArithmetic extends RexShuttle {
  private final RexBuilder rexBuilder;
  private final RelHomogeneousShuttle relShuttle = new RelHomogeneousShuttle() {
    @Override public RelNode visit(RelNode other) {
      return super.visit(other).accept(SpillwayCheckedArithmetic.this);
    }
  };

  private SpillwayCheckedArithmetic(RexBuilder rexBuilder) {
    this.rexBuilder = rexBuilder;
  }

  /** The program phase that rewrites a whole plan, sub-queries included. */
  static Program program() {
    return (planner, rel, traits, materializations, lattices) ->
        rel.accept(new SpillwayCheckedArithmetic(rel.getCluster().getRexBuilder()).relShuttle);
  }

  @Override public RexNode visitSubQuery(RexSubQuery subQuery) {
    RelNode rel = subQuery.rel.accept(relShuttle);
    return rel == subQuery.rel ? subQuery : subQuery.clone(rel);
  }

  @Override public RexNode visitCall(RexCall call) {
    boolean[] update = {false};
    List<RexNode> operands = visitList(call.getOperands(), update);
    SqlOperator checked = SqlTypeName.INT_TYPES.contains(call.getType().getSqlTypeName())
        ? checked(call.getOperator()) : null;
    if (checked != null) {
      return evaluateIfConstant(rexBuilder.makeCall(call.getParserPosition(), call.getType(), checked, operands));
    }
    RexNode result = update[0] ? call.clone(call.getType(), operands) : call;
    if (isDateArithmetic(call)) {
      return evaluateIfConstant(rexBuilder.makeCall(call.getParserPosition(), call.getType(),
          SpillwayDateRange.CHECKED_DATE, List.of(result)));
    }
    return result;
  }

  /** Whether a call computes a DATE from another by adding or subtracting an interval. */
  private static boolean isDateArithmetic(RexCall call) {
    return call.getType().getSqlTypeName() == SqlTypeName.DATE && switch (call.getKind()) {
      case PLUS, MINUS, TIMESTAMP_ADD -> true;
      default -> false;
    };
  }

  private RexNode evaluateIfConstant(RexNode checked) {
    if (RexUtil.isConstant(checked)) {
      evaluate(checked);
    }
    return checked;
  }

  /**
   * Evaluates a constant so that its overflow (integer or date) fails the statement now, as PostgreSQL's constant folding does.
   * Left to run, Calcite's code generator would hoist it into a static initializer, where the overflow
   * surfaces as an ExceptionInInitializerError (and as NoClassDefFoundError when the cached plan runs again).
   */
  private void evaluate(RexNode constant) {
    try {
      RexExecutable executable = RexExecutorImpl.getExecutable(rexBuilder, List.of(constant),
          rexBuilder.getTypeFactory().builder().build());
      executable.setDataContext(DataContexts.EMPTY);
      executable.execute();  // a constant that fits is left to the plan
    } catch (ArithmeticException | DateTimeException overflow) {
      throw overflow;
    } catch (RuntimeException e) {
      // not evaluable without a statement (e.g. it reads the clock): it runs with the query
    }
  }

  /**
   * The kind of an arithmetic call with its checked variants read as the plain ones: Spillway's evaluator and
   * its bounds analysis check every operation anyway.
   */
  static SqlKind plainKind(SqlKind kind) {
    return switch (kind) {
      case CHECKED_PLUS -> SqlKind.PLUS;
      case CHECKED_MINUS -> SqlKind.MINUS;
      case CHECKED_TIMES -> SqlKind.TIMES;
      case CHECKED_DIVIDE -> SqlKind.DIVIDE;
      case CHECKED_MINUS_PREFIX -> SqlKind.MINUS_PREFIX;
      default -> kind;
    };
  }

  /** The checked counterpart of an arithmetic operator, or null. */
  private static SqlOperator checked(SqlOperator operator) {
    return switch (operator.getKind()) {
      case PLUS -> SqlStdOperatorTable.CHECKED_PLUS;
      case MINUS -> SqlStdOperatorTable.CHECKED_MINUS;
      case TIMES -> SqlStdOperatorTable.CHECKED_MULTIPLY;
      case DIVIDE -> SqlStdOperatorTable.CHECKED_DIVIDE;
      case MINUS_PREFIX -> SqlStdOperatorTable.CHECKED_UNARY_MINUS;
      default -> null;
    };
  }
}
