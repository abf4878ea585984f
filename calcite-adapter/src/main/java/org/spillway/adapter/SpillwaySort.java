package org.spillway.adapter;

import org.spillway.gpu.plan.SortNode;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlExplainLevel;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.spillway.gpu.pipeline.sort.SortKey;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Sort in the Spillway convention (ORDER BY, LIMIT, OFFSET): a pipeline breaker that sorts its input's rows by
 * the collation on all cores ({@link SortNode}; a top-N when there is a fetch) and becomes the source of the
 * pipeline above it, which keeps the rows' order. Unlike the other Spillway nodes it carries its collation.
 */
public final class SpillwaySort extends Sort implements SpillwayRel {
  SpillwaySort(RelOptCluster cluster, RelTraitSet traits, RelNode input, RelCollation collation,
      @Nullable RexNode offset, @Nullable RexNode fetch) {
    super(cluster, traits.replace(CONVENTION).replace(collation), input, collation, offset, fetch);
  }

  @Override public Sort copy(RelTraitSet traitSet, RelNode newInput, RelCollation newCollation,
      @Nullable RexNode offset, @Nullable RexNode fetch) {
    return new SpillwaySort(getCluster(), traitSet, newInput, newCollation, offset, fetch);
  }

  @Override public @Nullable RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    return requireNonNull(super.computeSelfCost(planner, mq)).multiplyBy(SpillwayRel.COST_FACTOR);
  }

  @Override public RelWriter explainTerms(RelWriter pw) {
    super.explainTerms(pw);
    if (pw.getDetailLevel() == SqlExplainLevel.DIGEST_ATTRIBUTES) {
      return pw;
    }
    return pw.item("device", "cpu").item("variant", variant());
  }

  /** What the sort does: orders all rows, keeps the best of them (top-N), or only cuts rows off (limit). */
  private String variant() {
    if (collation.getFieldCollations().isEmpty()) {
      return "limit";
    }
    return fetch != null ? "top-n" : "merge-sort";
  }

  @Override public void implement(Implementor implementor) {
    Implementor input = implementor.child(getInput());
    List<SortKey> keys = new ArrayList<>();
    for (RelFieldCollation c : collation.getFieldCollations()) {
      keys.add(key(c));
    }
    implementor.source(new SortNode(input.node(), keys, offset == null ? 0 : value(offset),
        fetch == null ? -1 : value(fetch)), input);
  }

  /** The engine's key of a field collation: NULLs where SQL puts them when the query does not say. */
  static SortKey key(RelFieldCollation c) {
    boolean descending = c.getDirection().isDescending();
    RelFieldCollation.NullDirection nulls = c.nullDirection == RelFieldCollation.NullDirection.UNSPECIFIED
        ? c.getDirection().defaultNullDirection() : c.nullDirection;
    return new SortKey(c.getFieldIndex(), descending, nulls == RelFieldCollation.NullDirection.FIRST);
  }

  /** The value of a literal OFFSET or FETCH (the rule takes no other). */
  static long value(RexNode literal) {
    return requireNonNull(((RexLiteral) literal).getValueAs(Long.class), "OFFSET/FETCH value");
  }
}
