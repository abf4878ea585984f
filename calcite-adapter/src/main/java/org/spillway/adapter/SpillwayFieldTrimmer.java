package org.spillway.adapter;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql2rel.CorrelationReferenceFinder;
import org.apache.calcite.sql2rel.RelFieldTrimmer;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.mapping.Mapping;

/**
 * Calcite's field trimmer, except where a filter or projection whose sub-queries refer to its input row (a
 * correlation variable) sits on an input that gained a column of no original field: the dummy column that stands
 * for a join side of which nothing is used ({@code nation t0 JOIN supplier t1 ON FALSE}, or a cross join, under
 * {@code NOT EXISTS (... t1.s_nationkey)}). Calcite rebuilds the variable's row type from the original field of
 * every new column and fails on the dummy one; here the variable takes the new input's row type, and each field
 * the sub-queries read its new position.
 */
final class SpillwayFieldTrimmer extends RelFieldTrimmer {
  private final RexBuilder rexBuilder;

  SpillwayFieldTrimmer(SqlValidator validator, RelBuilder relBuilder) {
    super(validator, relBuilder);
    this.rexBuilder = relBuilder.getRexBuilder();
  }

  @Override protected TrimResult result(RelNode rel, Mapping mapping) {
    if (rel.getVariablesSet().isEmpty() || !(rel instanceof Filter || rel instanceof Project)
        || everyTargetHasASource(mapping)) {
      return super.result(rel, mapping);
    }
    RelDataType inputRow = rel.getInput(0).getRowType();
    RelNode out = rel;
    for (CorrelationId id : rel.getVariablesSet()) {
      out = out.accept(new CorrelationReferenceFinder() {
        @Override protected RexNode handle(RexFieldAccess access) {
          RexCorrelVariable variable = (RexCorrelVariable) access.getReferenceExpr();
          if (!variable.id.equals(id) || variable.getType().getFieldCount() != mapping.getSourceCount()) {
            return access;
          }
          int target = mapping.getTargetOpt(access.getField().getIndex());
          if (target < 0) {
            throw new IllegalStateException("trimming dropped column " + access + " that a sub-query reads");
          }
          return rexBuilder.makeFieldAccess(rexBuilder.makeCorrel(inputRow, id), target);
        }
      });
    }
    return new TrimResult(out, mapping);
  }

  private static boolean everyTargetHasASource(Mapping mapping) {
    for (int target = 0; target < mapping.getTargetCount(); target++) {
      if (mapping.getSourceOpt(target) < 0) {
        return false;
      }
    }
    return true;
  }
}
