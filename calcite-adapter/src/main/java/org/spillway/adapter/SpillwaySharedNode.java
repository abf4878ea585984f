package org.spillway.adapter;

import org.spillway.gpu.vector.ExprType;

import java.util.BitSet;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * A runtime node that the plan uses in several places (a subtree that decorrelation repeats, say): run once per
 * query, all its columns, and its output handed to every use. Used once, it runs as its input would.
 */
final class SpillwaySharedNode implements SpillwayNode {
  private final SpillwayNode input;
  private final IntSupplier uses;

  SpillwaySharedNode(SpillwayNode input, IntSupplier uses) {
    this.input = input;
    this.uses = uses;
  }

  @Override public List<ExprType> types() {
    return input.types();
  }

  @Override public SpillwayColumns run(SpillwayRunContext context) {
    return uses.getAsInt() <= 1 ? input.run(context) : context.shared(this, () -> input.run(context));
  }

  @Override public SpillwayColumns run(SpillwayRunContext context, BitSet read) {
    return uses.getAsInt() <= 1 ? input.run(context, read) : run(context);
  }
}
