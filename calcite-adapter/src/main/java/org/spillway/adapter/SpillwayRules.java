package org.spillway.adapter;

import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.plan.RelTrait;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.metadata.RelMdCollation;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexPermuteInputsShuttle;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.mapping.Mapping;
import org.apache.calcite.util.mapping.MappingType;
import org.apache.calcite.util.mapping.Mappings;

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

  /** Converts a filter over a Spillway subtree whose condition has a columnar program. */
  public static final ConverterRule FILTER = ConverterRule.Config.INSTANCE
      .withConversion(LogicalFilter.class, Convention.NONE, SpillwayRel.CONVENTION, "SpillwayFilterRule")
      .withRuleFactory(SpillwayFilterRule::new)
      .toRule(SpillwayFilterRule.class);

  /** Converts a project over a Spillway subtree whose expressions have columnar programs. */
  public static final ConverterRule PROJECT = ConverterRule.Config.INSTANCE
      .withConversion(LogicalProject.class, Convention.NONE, SpillwayRel.CONVENTION, "SpillwayProjectRule")
      .withRuleFactory(SpillwayProjectRule::new)
      .toRule(SpillwayProjectRule.class);

  /** Converts an aggregate over a Spillway subtree whose functions the hash aggregation supports. */
  public static final ConverterRule AGGREGATE = ConverterRule.Config.INSTANCE
      .withConversion(LogicalAggregate.class, Convention.NONE, SpillwayRel.CONVENTION, "SpillwayAggregateRule")
      .withRuleFactory(SpillwayAggregateRule::new)
      .toRule(SpillwayAggregateRule.class);

  /** Converts an equi-join of two Spillway subtrees whose keys the Spillway joins take. */
  public static final ConverterRule JOIN = ConverterRule.Config.INSTANCE
      .withConversion(LogicalJoin.class, Convention.NONE, SpillwayRel.CONVENTION, "SpillwayJoinRule")
      .withRuleFactory(SpillwayJoinRule::new)
      .toRule(SpillwayJoinRule.class);

  /** All rules that the Spillway table scan registers. */
  public static final List<RelOptRule> RULES = List.of(TO_ENUMERABLE, PROJECT_SCAN, FILTER, PROJECT, AGGREGATE, JOIN,
      SpillwayAntiJoinRule.INSTANCE, SpillwayUniqueSemiJoinRule.INSTANCE, SpillwaySortRule.INSTANCE,
      SpillwayNestedLoopJoinRule.INSTANCE);

  /** The fields of a logical node's input if it is a Spillway chain, else null. */
  static List<SpillwayField> inputFields(RelNode rel) {
    return SpillwayFields.of(rel.getInput(0)).orElse(null);
  }

  /** The node's input, asked for in the Spillway convention, in any order. */
  static RelNode inputInSpillway(RelNode rel) {
    return inSpillway(rel.getInput(0));
  }

  /**
   * The node's input asked for in the Spillway convention in the order the logical input has: only a sort
   * orders rows, and a filter or project over a {@link SpillwaySort} keeps them in that order.
   */
  static RelNode inputInSpillwayKeepingOrder(RelNode rel) {
    RelNode input = rel.getInput(0);
    return RelOptRule.convert(input, input.getTraitSet().replace(SpillwayRel.CONVENTION));
  }

  /** The node asked for in the Spillway convention, in any order (see {@link SpillwayRel#unordered}). */
  static RelNode inSpillway(RelNode rel) {
    return RelOptRule.convert(rel, SpillwayRel.unordered(rel.getTraitSet()));
  }

  /** Rule that turns a {@link LogicalFilter} into a {@link SpillwayFilter}. */
  static final class SpillwayFilterRule extends ConverterRule {
    SpillwayFilterRule(Config config) {
      super(config);
    }

    @Override public RelNode convert(RelNode rel) {
      LogicalFilter filter = (LogicalFilter) rel;
      List<SpillwayField> input = inputFields(filter);
      if (input == null) {
        return null;
      }
      try {
        SpillwayRexTranslator.check(filter.getCondition(), input);
      } catch (SpillwayUnsupportedException e) {
        SpillwayFallbacks.record(filter, e.getMessage());
        return null;
      }
      // A filter keeps its input's order: it claims exactly the order it asks its input for, nothing the
      // logical node's traits say (those may carry an ORDER BY above that nothing below it has done yet).
      RelNode ordered = inputInSpillwayKeepingOrder(filter);
      return new SpillwayFilter(filter.getCluster(), SpillwayRel.unordered(filter.getTraitSet())
          .replace((RelTrait) ordered.getTraitSet().getCollation()), ordered, filter.getCondition());
    }
  }

  /** Rule that turns a {@link LogicalProject} into a {@link SpillwayProject}. */
  static final class SpillwayProjectRule extends ConverterRule {
    SpillwayProjectRule(Config config) {
      super(config);
    }

    @Override public RelNode convert(RelNode rel) {
      LogicalProject project = (LogicalProject) rel;
      List<SpillwayField> input = inputFields(project);
      if (input == null) {
        return null;
      }
      try {
        for (RexNode e : project.getProjects()) {
          SpillwayRexTranslator.check(e, input);
        }
      } catch (SpillwayUnsupportedException e) {
        SpillwayFallbacks.record(project, e.getMessage());
        return null;
      }
      // A project claims its input's order as it maps through the projection, and nothing else (see the filter).
      RelNode ordered = inputInSpillwayKeepingOrder(project);
      List<RelCollation> kept = RelMdCollation.project(project.getCluster().getMetadataQuery(), ordered,
          project.getProjects());
      return new SpillwayProject(project.getCluster(), SpillwayRel.unordered(project.getTraitSet())
          .replace((RelTrait) (kept.isEmpty() ? RelCollations.EMPTY : kept.get(0))), ordered, project.getProjects(),
          project.getRowType());
    }
  }

  /**
   * Rule that turns a {@link LogicalJoin} into a {@link SpillwayJoin}; an inner join's condition beyond key
   * equality becomes a {@link SpillwayFilter} over it.
   */
  static final class SpillwayJoinRule extends ConverterRule {
    SpillwayJoinRule(Config config) {
      super(config);
    }

    @Override public RelNode convert(RelNode rel) {
      LogicalJoin join = (LogicalJoin) rel;
      List<SpillwayField> left = SpillwayFields.of(join.getLeft()).orElse(null);
      List<SpillwayField> right = left == null ? null : SpillwayFields.of(join.getRight()).orElse(null);
      if (right == null) {
        return null;
      }
      SpillwayJoinKeys keys;
      try {
        if (!join.getVariablesSet().isEmpty()) {
          throw new SpillwayUnsupportedException("correlated join (variables " + join.getVariablesSet() + ")");
        }
        keys = SpillwayJoinKeys.of(join, left, right);
      } catch (SpillwayUnsupportedException e) {
        // a cross product the planner will filter is no reason, nor a join the nested-loop join takes
        if (!join.getCondition().isAlwaysTrue() && SpillwayNestedLoopJoinRule.smallSide(join).isEmpty()) {
          SpillwayFallbacks.record(join, e.getMessage());
        }
        return null;
      }
      RelTraitSet traits = SpillwayRel.unordered(join.getTraitSet());
      RelNode leftInput = inSpillway(join.getLeft());
      RelNode rightInput = inSpillway(join.getRight());
      // An outer, semi- or anti-join keeps its residual: it decides per candidate pair, not after the join.
      if (keys.residual() == null || join.getJoinType() != JoinRelType.INNER) {
        return new SpillwayJoin(join.getCluster(), traits, leftInput, rightInput, join.getCondition(),
            join.getJoinType());
      }
      RexNode equi = join.analyzeCondition().getEquiCondition(join.getLeft(), join.getRight(),
          join.getCluster().getRexBuilder());
      SpillwayJoin equiJoin = new SpillwayJoin(join.getCluster(), traits, leftInput, rightInput, equi,
          join.getJoinType());
      return new SpillwayFilter(join.getCluster(), traits, equiJoin, keys.residual());
    }
  }

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
