package org.spillway.adapter;

import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rex.RexPermuteInputsShuttle;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.mapping.Mapping;
import org.apache.calcite.util.mapping.MappingType;
import org.apache.calcite.util.mapping.Mappings;
import org.apache.calcite.rex.RexNode;

import java.util.List;

/** Rules and relational operators for the {@link SpillwayRel#CONVENTION Spillway} calling convention. */
public final class SpillwayRules {
  private SpillwayRules() {}

  /** Converts a Spillway subtree to the enumerable convention at its top. */
  public static final ConverterRule TO_ENUMERABLE = ConverterRule.Config.INSTANCE
      .withConversion(RelNode.class, SpillwayRel.CONVENTION, EnumerableConvention.INSTANCE,
          "SpillwayToEnumerableConverterRule")
      .withRuleFactory(SpillwayToEnumerableConverterRule::new)
      .toRule(SpillwayToEnumerableConverterRule.class);

  /** Pushes a projection of plain column references into the scan below it. */
  public static final RelOptRule PROJECT_SCAN = SpillwayRuleConfig.of("SpillwayProjectScanRule",
      b0 -> b0.operand(LogicalProject.class)
          .oneInput(b1 -> b1.operand(SpillwayTableScan.class).noInputs()),
      ProjectScanRule::new).toRule();

  /** All rules that the Spillway table scan registers. */
  public static final List<RelOptRule> RULES = List.of(TO_ENUMERABLE, PROJECT_SCAN);

  /** Rule that adds a {@link SpillwayToEnumerableConverter} above a Spillway subtree. */
  static final class SpillwayToEnumerableConverterRule extends ConverterRule {
    SpillwayToEnumerableConverterRule(Config config) {
      super(config);
    }

    @Override public RelNode convert(RelNode rel) {
      return new SpillwayToEnumerableConverter(rel.getCluster(),
          rel.getTraitSet().replace(EnumerableConvention.INSTANCE), rel);
    }
  }

  /**
   * Rule that narrows a scan to the columns a project above it uses; the project stays on top with its
   * input references renumbered (and disappears if it only reordered columns).
   */
  static final class ProjectScanRule extends RelRule<SpillwayRuleConfig> {
    ProjectScanRule(SpillwayRuleConfig config) {
      super(config);
    }

    @Override public void onMatch(RelOptRuleCall call) {
      LogicalProject project = call.rel(0);
      SpillwayTableScan scan = call.rel(1);
      ImmutableBitSet used = RelOptUtil.InputFinder.bits(project.getProjects(), null);
      if (used.cardinality() == scan.getRowType().getFieldCount()) {
        return;  // nothing to prune
      }
      int[] kept = used.toArray();
      SpillwayTableScan narrow = scan.project(kept);
      Mapping mapping = Mappings.create(MappingType.INVERSE_SURJECTION,
          scan.getRowType().getFieldCount(), kept.length);
      for (int i = 0; i < kept.length; i++) {
        mapping.set(kept[i], i);
      }
      RexPermuteInputsShuttle shuttle = RexPermuteInputsShuttle.of(mapping);
      List<RexNode> exprs = shuttle.visitList(project.getProjects());
      call.transformTo(project.copy(project.getTraitSet(), narrow, exprs, project.getRowType()));
    }
  }
}
