package org.spillway.adapter;

import org.spillway.gpu.plan.JoinedOutput;
import org.spillway.gpu.plan.NodeOutput;
import org.spillway.gpu.plan.PlanNode;
import org.spillway.gpu.plan.RunContext;

import org.apache.calcite.rel.core.JoinRelType;
import org.spillway.adapter.SpillwayJoinCost.Candidate;
import org.spillway.gpu.device.MemoryGuard;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.join.nopa.CpuNopaHashJoin;
import org.spillway.gpu.join.radix.CpuRadixJoin;
import org.spillway.gpu.join.EquiJoin;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.keys.JoinKeys;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * An equi-join at run time: runs both inputs, joins their keys with the algorithm the cost model chose
 * (CPU NOPA or radix, or a GPU join of {@link SpillwayGpuJoins}) into row-id pairs, and returns the output as
 * {@link JoinedOutput}, which gathers payload columns only when they are read.
 *
 * <p>The joins preserve their probe side: a LEFT join probes with the left input, a RIGHT join with the right,
 * SEMI and ANTI joins probe with the left input and return its rows.
 */
final class SpillwayJoinNode implements PlanNode {
  private final PlanNode left;
  private final PlanNode right;
  private final SpillwayJoinKeys keys;
  private final JoinRelType joinType;
  private final Candidate choice;
  private final SpillwayDeviceUsage usage;
  private final String label;

  SpillwayJoinNode(PlanNode left, PlanNode right, SpillwayJoinKeys keys, JoinRelType joinType,
      Candidate choice, SpillwayDeviceUsage usage, String label) {
    this.left = left;
    this.right = right;
    this.keys = keys;
    this.joinType = joinType;
    this.choice = choice;
    this.usage = usage;
    this.label = label;
  }

  @Override public List<ExprType> types() {
    List<ExprType> out = new ArrayList<>(left.types());
    if (joinType.projectsRight()) {
      out.addAll(right.types());
    }
    return out;
  }

  /**
   * Read by no column (a COUNT(*) above), a CPU join only counts its output rows: no row-id pair is stored, so
   * a join of billions of rows needs no memory for them.
   */
  @Override public NodeOutput run(RunContext context, BitSet read) {
    if (!read.isEmpty() || choice.algorithm().gpu()) {
      return run(context);
    }
    NodeOutput leftColumns = left.run(context);
    NodeOutput rightColumns = right.run(context);
    context.checkCancelled("before join " + label);
    SpillwayJoinEncodedKeys encoded = new SpillwayJoinEncodedKeys(keys, leftColumns, rightColumns,
        choice.buildLeft());
    JoinKeys buildKey = encoded.build();
    JoinKeys probeKey = encoded.probe();
    long start = System.nanoTime();
    try (EquiJoin join = cpuJoin(context)) {
      JoinResult result = join.join(buildKey.countingInput(), probeKey.countingInput(), joinType(),
          JoinOutput.AGGREGATED);
      usage.record(false);
      RunContext.trace("cpu join %s counted (%s): %d x %d -> %d rows in %.1f ms", label, result.algorithm(),
          buildKey.rows(), probeKey.rows(), result.rowCount(), (System.nanoTime() - start) / 1e6);
      return new SpillwayRowCount(result.rowCount(), types());
    }
  }

  @Override public NodeOutput run(RunContext context) {
    NodeOutput leftColumns = left.run(context);
    NodeOutput rightColumns = right.run(context);
    context.checkCancelled("before join " + label);
    boolean buildLeft = choice.buildLeft();
    SpillwayJoinEncodedKeys encoded = new SpillwayJoinEncodedKeys(keys, leftColumns, rightColumns, buildLeft);
    NodeOutput build = encoded.buildColumns();
    NodeOutput probe = encoded.probeColumns();
    long start = System.nanoTime();
    JoinResult result = join(encoded, context);
    RunContext.trace("%s join %s (%s, build %s): %d x %d -> %d rows in %.1f ms", choice.device(), label,
        result.algorithm(), buildLeft ? "left" : "right", build.rows(), probe.rows(),
        result.rowCount(), (System.nanoTime() - start) / 1e6);
    context.checkCancelled("after join " + label);
    MemoryGuard.require("the join " + label + " of " + build.rows() + " x " + probe.rows()
        + " rows into " + result.rowCount() + " rows", result.rowCount() * Integer.BYTES
        * (joinType.projectsRight() ? 2L : 1L));
    int[] probeRows = result.probeRows().toArray();
    if (!joinType.projectsRight()) {
      return new JoinedOutput(leftColumns, null, probeRows, null);
    }
    int[] buildRows = result.buildRows().toArray();
    return buildLeft ? new JoinedOutput(leftColumns, rightColumns, buildRows, probeRows)
        : new JoinedOutput(leftColumns, rightColumns, probeRows, buildRows);
  }

  private JoinResult join(SpillwayJoinEncodedKeys encoded, RunContext context) {
    JoinType type = joinType();
    if (choice.algorithm().gpu()) {
      JoinResult result = SpillwayGpuJoinRun.join(choice.algorithm(), options(), encoded.buildSide(),
          encoded.probeSide(), type, context.cancelled());
      usage.record(true);
      return result;
    }
    long start = System.nanoTime();
    JoinKeys buildKey = encoded.build();
    JoinKeys probeKey = encoded.probe();
    long gathered = System.nanoTime();
    try (EquiJoin join = cpuJoin(context)) {
      JoinResult result = join.join(buildKey.input(), probeKey.input(), type, JoinOutput.MATERIALIZED);
      usage.record(false);
      RunContext.trace("  cpu join phases: keys gathered %.1f ms, join %.1f ms", (gathered - start) / 1e6,
          (System.nanoTime() - gathered) / 1e6);
      return result;
    }
  }

  private JoinType joinType() {
    return switch (joinType) {
      case INNER -> JoinType.INNER;
      case LEFT, RIGHT -> JoinType.LEFT_OUTER;  // the preserved side is the probe side
      case SEMI -> JoinType.SEMI;
      case ANTI -> JoinType.ANTI;
      default -> throw new IllegalStateException(joinType + " join passed planning: " + label);
    };
  }

  private EquiJoin cpuJoin(RunContext context) {
    return choice.algorithm() == SpillwayJoinAlgorithm.CPU_RADIX
        ? new CpuRadixJoin(context.threads()) : new CpuNopaHashJoin(context.threads());
  }

  /** The GPU join's configuration from the cost model's candidate. */
  private SpillwayGpuJoinFactory.Options options() {
    SpillwayJoinCost.RadixBits bits = choice.radixBits();
    return new SpillwayGpuJoinFactory.Options(choice.placement(), bits == null ? 0 : bits.first(),
        bits == null ? 0 : bits.second(),
        choice.cacheShare() == null ? 0 : choice.cacheShare(), choice.transfer());
  }
}
