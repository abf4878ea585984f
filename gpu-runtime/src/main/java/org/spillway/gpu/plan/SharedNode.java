package org.spillway.gpu.plan;

import org.spillway.gpu.vector.ExprType;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import org.spillway.gpu.expr.Expr;
import java.util.function.IntSupplier;

/**
 * A runtime node that the plan uses in several places (a subtree that decorrelation repeats, say): run once per
 * query, all its columns, and its output handed to every use. Used once, it runs as its input would.
 */
public final class SharedNode implements PlanNode {
  private final PlanNode input;
  private final IntSupplier uses;

  public SharedNode(PlanNode input, IntSupplier uses) {
    this.input = input;
    this.uses = uses;
  }

  @Override public List<ExprType> types() {
    return input.types();
  }

  @Override public boolean cpuOnly() {
    return input.cpuOnly();
  }

  @Override public boolean atMostOneRow() {
    return input.atMostOneRow();
  }

  /** The input narrowed, where this is its only use: a use elsewhere needs all its rows. */
  @Override public Optional<PlanNode> filteredBy(Expr condition) {
    return uses.getAsInt() <= 1 ? input.filteredBy(condition) : Optional.empty();
  }

  @Override public NodeOutput run(RunContext context) {
    return uses.getAsInt() <= 1 ? input.run(context) : context.shared(this, () -> input.run(context));
  }

  @Override public NodeOutput run(RunContext context, BitSet read) {
    return uses.getAsInt() <= 1 ? input.run(context, read) : run(context);
  }
}
