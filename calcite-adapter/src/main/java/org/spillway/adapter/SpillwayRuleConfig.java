package org.spillway.adapter;

import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.tools.RelBuilderFactory;

import java.util.function.Function;

/**
 * Rule configuration for Spillway's rules, written by hand so that the adapter needs no annotation
 * processor (Calcite's own rules generate theirs with Immutables).
 */
public record SpillwayRuleConfig(String description, RelRule.OperandTransform operandSupplier,
    RelBuilderFactory relBuilderFactory, Function<SpillwayRuleConfig, RelOptRule> factory)
    implements RelRule.Config {

  /** A configuration that builds its rule with the given factory. */
  public static SpillwayRuleConfig of(String description, RelRule.OperandTransform operands,
      Function<SpillwayRuleConfig, RelOptRule> factory) {
    return new SpillwayRuleConfig(description, operands, RelFactories.LOGICAL_BUILDER, factory);
  }

  @Override public RelOptRule toRule() {
    return factory.apply(this);
  }

  @Override public SpillwayRuleConfig withRelBuilderFactory(RelBuilderFactory f) {
    return new SpillwayRuleConfig(description, operandSupplier, f, factory);
  }

  @Override public SpillwayRuleConfig withDescription(String d) {
    return new SpillwayRuleConfig(d, operandSupplier, relBuilderFactory, factory);
  }

  @Override public SpillwayRuleConfig withOperandSupplier(RelRule.OperandTransform t) {
    return new SpillwayRuleConfig(description, t, relBuilderFactory, factory);
  }
}
