package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

/** The date-range rewrite applies only to values on the calendar (random differential test seeds 4242342, 4242349). */
class SpillwayDateRangeRuleTest {
  private final RelDataTypeFactory types = new JavaTypeFactoryImpl();
  private final RexBuilder rex = new RexBuilder(types);
  private final RexNode date = rex.makeInputRef(types.createSqlType(SqlTypeName.DATE), 0);

  private RexNode year(long year, SqlOperator op) {
    RexNode extract = rex.makeCall(SqlStdOperatorTable.EXTRACT, rex.makeFlag(TimeUnitRange.YEAR), date);
    return rex.makeCall(op, extract, rex.makeBigintLiteral(BigDecimal.valueOf(year)));
  }

  @Test void yearsOnTheCalendarAreRewritten() {
    assertTrue(SpillwayDateRangeRule.onCalendar(year(1995, SqlStdOperatorTable.EQUALS)));
    assertTrue(SpillwayDateRangeRule.onCalendar(rex.makeCall(SqlStdOperatorTable.AND,
        year(1, SqlStdOperatorTable.GREATER_THAN_OR_EQUAL), year(9999, SqlStdOperatorTable.LESS_THAN))));
  }

  @Test void yearsOffTheCalendarStayAsWritten() {
    assertFalse(SpillwayDateRangeRule.onCalendar(year(60000, SqlStdOperatorTable.EQUALS)));
    assertFalse(SpillwayDateRangeRule.onCalendar(year(10000, SqlStdOperatorTable.LESS_THAN)));
    assertFalse(SpillwayDateRangeRule.onCalendar(year(-5, SqlStdOperatorTable.GREATER_THAN_OR_EQUAL)));
    assertFalse(SpillwayDateRangeRule.onCalendar(rex.makeCall(SqlStdOperatorTable.OR,
        year(1995, SqlStdOperatorTable.EQUALS), year(0, SqlStdOperatorTable.EQUALS))));
  }
}
