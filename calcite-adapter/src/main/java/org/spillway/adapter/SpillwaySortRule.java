package org.spillway.adapter;

import org.apache.calcite.plan.Convention;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.logical.LogicalSort;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;

import java.util.List;

/** Rule that turns a {@link LogicalSort} (ORDER BY, LIMIT, OFFSET) over a Spillway subtree into a {@link SpillwaySort}. */
final class SpillwaySortRule extends ConverterRule {
  /** The rule's instance. */
  static final ConverterRule INSTANCE = Config.INSTANCE
      .withConversion(LogicalSort.class, Convention.NONE, SpillwayRel.CONVENTION, "SpillwaySortRule")
      .withRuleFactory(SpillwaySortRule::new)
      .toRule(SpillwaySortRule.class);

  private SpillwaySortRule(Config config) {
    super(config);
  }

  @Override public RelNode convert(RelNode rel) {
    LogicalSort sort = (LogicalSort) rel;
    List<SpillwayField> input = SpillwayRules.inputFields(sort);
    if (input == null) {
      return null;
    }
    String unsupported = unsupported(sort, input);
    if (unsupported != null) {
      SpillwayFallbacks.record(sort, unsupported);
      return null;
    }
    return new SpillwaySort(sort.getCluster(), sort.getTraitSet(), SpillwayRules.inputInSpillway(sort),
        sort.getCollation(), sort.offset, sort.fetch);
  }

  /** Why the sort cannot run in Spillway, or null. */
  private static String unsupported(LogicalSort sort, List<SpillwayField> input) {
    for (RexNode bound : new RexNode[] {sort.offset, sort.fetch}) {
      if (bound != null && !(bound instanceof RexLiteral)) {
        return "OFFSET or FETCH " + bound + " is not a literal";
      }
    }
    for (RelFieldCollation c : sort.getCollation().getFieldCollations()) {
      SpillwayField field = input.get(c.getFieldIndex());
      if (!field.isSupported()) {
        return "ORDER BY $" + c.getFieldIndex() + " of " + field.unsupported();
      }
    }
    return null;
  }
}
