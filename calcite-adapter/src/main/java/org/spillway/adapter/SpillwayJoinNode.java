package org.spillway.adapter;

import org.apache.calcite.rel.core.JoinRelType;
import org.spillway.adapter.SpillwayJoinCost.Candidate;
import org.spillway.gpu.device.MemoryGuard;
import org.spillway.gpu.exec.ExprType;
import org.spillway.gpu.join.CpuNopaHashJoin;
import org.spillway.gpu.join.CpuRadixJoin;
import org.spillway.gpu.join.EquiJoin;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * An equi-join at run time: runs both inputs, joins their keys with the algorithm the cost model chose
 * (CPU NOPA or radix, or a GPU join of {@link SpillwayGpuJoins}) into row-id pairs, and returns the output as
 * {@link SpillwayJoinedColumns}, which gathers payload columns only when they are read.
 *
 * <p>The joins preserve their probe side: a LEFT join probes with the left input, a RIGHT join with the right,
 * SEMI and ANTI joins probe with the left input and return its rows.
 */
final class SpillwayJoinNode implements SpillwayNode {
  private final SpillwayNode left;
  private final SpillwayNode right;
  private final SpillwayJoinKeys keys;
  private final JoinRelType joinType;
  private final Candidate choice;
  private final SpillwayDeviceUsage usage;
  private final String label;

  SpillwayJoinNode(SpillwayNode left, SpillwayNode right, SpillwayJoinKeys keys, JoinRelType joinType,
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
  @Override public SpillwayColumns run(SpillwayRunContext context, BitSet read) {
    if (!read.isEmpty() || choice.algorithm().gpu()) {
      return run(context);
    }
    SpillwayColumns leftColumns = left.run(context);
    SpillwayColumns rightColumns = right.run(context);
    context.checkCancelled("before join " + label);
    boolean buildLeft = choice.buildLeft();
    SpillwayJoinKeyColumn buildKey = buildLeft ? SpillwayJoinKeyColumn.of(leftColumns, keys.leftKeys(), keys.packed())
        : SpillwayJoinKeyColumn.of(rightColumns, keys.rightKeys(), keys.packed());
    SpillwayJoinKeyColumn probeKey = buildLeft ? SpillwayJoinKeyColumn.of(rightColumns, keys.rightKeys(), keys.packed())
        : SpillwayJoinKeyColumn.of(leftColumns, keys.leftKeys(), keys.packed());
    long start = System.nanoTime();
    try (EquiJoin join = cpuJoin(context)) {
      JoinResult result = join.join(buildKey.countingInput(), probeKey.countingInput(), joinType(),
          JoinOutput.AGGREGATED);
      usage.record(false);
      SpillwayRunContext.trace("cpu join %s counted (%s): %d x %d -> %d rows in %.1f ms", label, result.algorithm(),
          buildKey.rows(), probeKey.rows(), result.rowCount(), (System.nanoTime() - start) / 1e6);
      return new SpillwayRowCount(result.rowCount(), types());
    }
  }

  @Override public SpillwayColumns run(SpillwayRunContext context) {
    SpillwayColumns leftColumns = left.run(context);
    SpillwayColumns rightColumns = right.run(context);
    context.checkCancelled("before join " + label);
    boolean buildLeft = choice.buildLeft();
    SpillwayGpuJoinRun.Side build = buildLeft ? new SpillwayGpuJoinRun.Side(leftColumns, keys.leftKeys(), keys.packed())
        : new SpillwayGpuJoinRun.Side(rightColumns, keys.rightKeys(), keys.packed());
    SpillwayGpuJoinRun.Side probe = buildLeft
        ? new SpillwayGpuJoinRun.Side(rightColumns, keys.rightKeys(), keys.packed())
        : new SpillwayGpuJoinRun.Side(leftColumns, keys.leftKeys(), keys.packed());
    long start = System.nanoTime();
    JoinResult result = join(build, probe, context);
    SpillwayRunContext.trace("%s join %s (%s, build %s): %d x %d -> %d rows in %.1f ms", choice.device(), label,
        result.algorithm(), buildLeft ? "left" : "right", build.columns().rows(), probe.columns().rows(),
        result.rowCount(), (System.nanoTime() - start) / 1e6);
    context.checkCancelled("after join " + label);
    MemoryGuard.require("the join " + label + " of " + build.columns().rows() + " x " + probe.columns().rows()
        + " rows into " + result.rowCount() + " rows", result.rowCount() * Integer.BYTES
        * (joinType.projectsRight() ? 2L : 1L));
    int[] probeRows = result.probeRows().toArray();
    if (!joinType.projectsRight()) {
      return new SpillwayJoinedColumns(leftColumns, null, probeRows, null);
    }
    int[] buildRows = result.buildRows().toArray();
    return buildLeft ? new SpillwayJoinedColumns(leftColumns, rightColumns, buildRows, probeRows)
        : new SpillwayJoinedColumns(leftColumns, rightColumns, probeRows, buildRows);
  }

  private JoinResult join(SpillwayGpuJoinRun.Side build, SpillwayGpuJoinRun.Side probe, SpillwayRunContext context) {
    JoinType type = joinType();
    if (choice.algorithm().gpu()) {
      JoinResult result = SpillwayGpuJoinRun.join(choice.algorithm(), options(), build, probe, type,
          context.cancelled());
      usage.record(true);
      return result;
    }
    long start = System.nanoTime();
    SpillwayJoinKeyColumn buildKey = SpillwayJoinKeyColumn.of(build.columns(), build.keyColumns(), build.packed());
    SpillwayJoinKeyColumn probeKey = SpillwayJoinKeyColumn.of(probe.columns(), probe.keyColumns(), probe.packed());
    long gathered = System.nanoTime();
    try (EquiJoin join = cpuJoin(context)) {
      JoinResult result = join.join(buildKey.input(), probeKey.input(), type, JoinOutput.MATERIALIZED);
      usage.record(false);
      SpillwayRunContext.trace("  cpu join phases: keys gathered %.1f ms, join %.1f ms", (gathered - start) / 1e6,
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

  private EquiJoin cpuJoin(SpillwayRunContext context) {
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
