package org.spillway.adapter;

import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

import java.util.ArrayList;
import java.util.List;

/**
 * Rule that turns a {@link LogicalAggregate} into a {@link SpillwayAggregate}: calls with FILTER read a
 * CASE that is NULL where the filter is not TRUE (computed by a {@link SpillwayProject} below, on either
 * device), LITERAL_AGG calls become constants of a project above.
 */
final class SpillwayAggregateRule extends ConverterRule {
  SpillwayAggregateRule(Config config) {
    super(config);
  }

  @Override public RelNode convert(RelNode rel) {
    LogicalAggregate aggregate = (LogicalAggregate) rel;
    List<SpillwayField> input = SpillwayRules.inputFields(aggregate);
    if (input == null) {
      return null;
    }
    List<AggregateCall> computed = new ArrayList<>();
    for (AggregateCall call : aggregate.getAggCallList()) {
      if (SqlKind.AVG_AGG_FUNCTIONS.contains(call.getAggregation().getKind())) {
        return null;  // Calcite reduces these to SUM and COUNT; the reduced aggregate is converted instead
      }
      if (call.isDistinct() && call.filterArg < 0) {
        return null;  // Calcite expands these into aggregates that group by the argument; those are converted
      }
      if (call.getAggregation().getKind() != SqlKind.LITERAL_AGG) {
        computed.add(call);
      }
    }
    RelTraitSet traits = SpillwayRel.unordered(aggregate.getTraitSet());
    RelNode below = SpillwayRules.inputInSpillway(aggregate);
    List<SpillwayField> fields = input;
    try {
      if (computed.stream().anyMatch(c -> c.filterArg >= 0)) {
        List<RexNode> projects = unfiltered(aggregate, computed, input.size());
        fields = new ArrayList<>(input);
        for (RexNode e : projects.subList(input.size(), projects.size())) {
          SpillwayRexTranslator.check(e, input);
          fields.add(SpillwayRexTranslator.fieldOf(e, input));
        }
        below = new SpillwayProject(aggregate.getCluster(), traits, below, projects, rowType(aggregate, projects));
      }
      Aggregate spillway = SpillwayAggregate.create(aggregate.getCluster(), traits, below, aggregate.getGroupSet(),
          aggregate.getGroupSets(), computed);
      SpillwayAggregate.stage(spillway, fields);
      return computed.size() == aggregate.getAggCallList().size() ? spillway
          : withLiterals(aggregate, spillway, traits);
    } catch (SpillwayUnsupportedException e) {
      SpillwayFallbacks.record(aggregate, e.getMessage());
      return null;
    }
  }

  /**
   * The input's fields followed by one {@code CASE WHEN filter THEN argument END} (for COUNT: TRUE, where also
   * the argument is not NULL) per call with a FILTER, whose calls are replaced in {@code calls} by the same call
   * over that column: SQL's FILTER skips the rows where it is not TRUE, as the aggregate functions skip NULLs.
   */
  private static List<RexNode> unfiltered(Aggregate aggregate, List<AggregateCall> calls, int inputFields) {
    RexBuilder rexBuilder = aggregate.getCluster().getRexBuilder();
    RelDataTypeFactory typeFactory = aggregate.getCluster().getTypeFactory();
    RelNode input = aggregate.getInput();
    List<RexNode> projects = new ArrayList<>();
    for (int i = 0; i < inputFields; i++) {
      projects.add(rexBuilder.makeInputRef(input, i));
    }
    for (int c = 0; c < calls.size(); c++) {
      AggregateCall call = calls.get(c);
      if (call.filterArg < 0) {
        continue;
      }
      RexNode filter = rexBuilder.makeInputRef(input, call.filterArg);
      RexNode value = rexBuilder.makeLiteral(true);
      if (call.getAggregation().getKind() != SqlKind.COUNT) {
        value = rexBuilder.makeInputRef(input, call.getArgList().get(0));
      } else if (!call.getArgList().isEmpty()) {  // COUNT reads only whether its argument is NULL
        filter = rexBuilder.makeCall(SqlStdOperatorTable.AND, filter, rexBuilder.makeCall(
            SqlStdOperatorTable.IS_NOT_NULL, rexBuilder.makeInputRef(input, call.getArgList().get(0))));
      }
      RelDataType type = typeFactory.createTypeWithNullability(value.getType(), true);
      projects.add(rexBuilder.makeCall(type, SqlStdOperatorTable.CASE, List.of(filter, value,
          rexBuilder.makeNullLiteral(type))));
      calls.set(c, call.withArgList(List.of(projects.size() - 1)).withFilter(-1));
    }
    return projects;
  }

  private static RelDataType rowType(Aggregate aggregate, List<RexNode> projects) {
    RelDataTypeFactory.Builder builder = aggregate.getCluster().getTypeFactory().builder();
    for (int i = 0; i < projects.size(); i++) {
      builder.add(i < aggregate.getInput().getRowType().getFieldCount()
          ? aggregate.getInput().getRowType().getFieldNames().get(i) : "$f" + i, projects.get(i).getType());
    }
    return builder.uniquify().build();
  }

  /**
   * The aggregate's rows from one without its LITERAL_AGG calls (a constant per group, which Calcite's
   * sub-query rewrites use as a marker) and a project that adds the constants.
   */
  private static RelNode withLiterals(Aggregate aggregate, Aggregate computed, RelTraitSet traits) {
    RexBuilder rexBuilder = aggregate.getCluster().getRexBuilder();
    int keys = aggregate.getGroupCount();
    List<RexNode> projects = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      projects.add(rexBuilder.makeInputRef(computed, k));
    }
    int next = keys;
    for (AggregateCall call : aggregate.getAggCallList()) {
      projects.add(call.getAggregation().getKind() == SqlKind.LITERAL_AGG
          ? rexBuilder.ensureType(call.getType(), call.rexList.get(0), true)
          : rexBuilder.makeInputRef(computed, next++));
    }
    return new SpillwayProject(aggregate.getCluster(), traits, computed, projects, aggregate.getRowType());
  }
}
