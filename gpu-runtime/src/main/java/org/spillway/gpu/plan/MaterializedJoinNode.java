package org.spillway.gpu.plan;

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
 * (CPU NOPA or radix, or the GPU join its {@link GpuJoinSpec} configures) into row-id pairs, and returns the output as
 * {@link JoinedOutput}, which gathers payload columns only when they are read.
 *
 * <p>The joins preserve only their probe side ({@link JoinKind} INNER, LEFT, SEMI or ANTI): a SQL LEFT join probes
 * with the left input, a RIGHT join with the right; SEMI and ANTI joins probe with the left input and return its
 * rows.
 */
public final class MaterializedJoinNode implements PlanNode {
  private final PlanNode left;
  private final PlanNode right;
  private final EquiJoinKeys keys;
  private final JoinType joinType;
  private final JoinChoice choice;
  private final DeviceRuns usage;
  private final String label;

  /**
   * A join of {@code left} and {@code right} of {@code kind} (LEFT preserves the probe side, which {@code choice}
   * says is the side not built on); a kind that keeps or marks build rows fails here.
   */
  public MaterializedJoinNode(PlanNode left, PlanNode right, EquiJoinKeys keys, JoinKind kind,
      JoinChoice choice, DeviceRuns usage, String label) {
    this.left = left;
    this.right = right;
    this.keys = keys;
    this.joinType = kind.materializedType();
    this.choice = choice;
    this.usage = usage;
    this.label = label;
  }

  @Override public List<ExprType> types() {
    List<ExprType> out = new ArrayList<>(left.types());
    if (projectsRight()) {
      out.addAll(right.types());
    }
    return out;
  }

  /**
   * Read by no column (a COUNT(*) above), a CPU join only counts its output rows: no row-id pair is stored, so
   * a join of billions of rows needs no memory for them.
   */
  @Override public NodeOutput run(RunContext context, BitSet read) {
    if (!read.isEmpty() || choice.gpu()) {
      return run(context);
    }
    List<NodeOutput> inputs = runInputs(context);
    NodeOutput leftColumns = inputs.get(0);
    NodeOutput rightColumns = inputs.get(1);
    context.checkCancelled("before join " + label);
    EncodedJoinKeys encoded = new EncodedJoinKeys(keys, leftColumns, rightColumns, choice.buildLeft());
    JoinKeys buildKey = encoded.build();
    JoinKeys probeKey = encoded.probe();
    long start = System.nanoTime();
    try (EquiJoin join = cpuJoin(context)) {
      JoinResult result = join.join(buildKey.countingInput(), probeKey.countingInput(), joinType,
          JoinOutput.AGGREGATED);
      usage.record(false);
      context.report(this, OperatorReport.Execution.CPU, result.rowCount(), start);
      RunContext.trace("cpu join %s counted (%s): %d x %d -> %d rows in %.1f ms", label, result.algorithm(),
          buildKey.rows(), probeKey.rows(), result.rowCount(), (System.nanoTime() - start) / 1e6);
      return new RowCountOutput(result.rowCount(), types());
    }
  }

  @Override public boolean cpuOnly() {
    return !choice.gpu() && left.cpuOnly() && right.cpuOnly();
  }

  /** Both inputs, side by side where at most one uses the GPU. */
  private List<NodeOutput> runInputs(RunContext context) {
    return IndependentRuns.run(context, IndependentRuns.sideBySide(List.of(left, right)),
        List.of(() -> left.run(context), () -> right.run(context)));
  }

  @Override public NodeOutput run(RunContext context) {
    List<NodeOutput> inputs = runInputs(context);
    NodeOutput leftColumns = inputs.get(0);
    NodeOutput rightColumns = inputs.get(1);
    context.checkCancelled("before join " + label);
    boolean buildLeft = choice.buildLeft();
    EncodedJoinKeys encoded = new EncodedJoinKeys(keys, leftColumns, rightColumns, buildLeft);
    NodeOutput build = encoded.buildColumns();
    NodeOutput probe = encoded.probeColumns();
    long start = System.nanoTime();
    GpuJoinRun.Joined joined = join(encoded, context);
    JoinResult result = joined.result();
    context.report(this, joined.execution(), result.rowCount(), start);
    RunContext.trace("%s join %s (%s, build %s): %d x %d -> %d rows in %.1f ms", choice.device(), label,
        result.algorithm(), buildLeft ? "left" : "right", build.rows(), probe.rows(),
        result.rowCount(), (System.nanoTime() - start) / 1e6);
    context.checkCancelled("after join " + label);
    MemoryGuard.require("the join " + label + " of " + build.rows() + " x " + probe.rows()
        + " rows into " + result.rowCount() + " rows", result.rowCount() * Integer.BYTES
        * (projectsRight() ? 2L : 1L));
    int[] probeRows = result.probeRows().toArray();
    if (!projectsRight()) {
      return new JoinedOutput(leftColumns, null, probeRows, null);
    }
    int[] buildRows = result.buildRows().toArray();
    return buildLeft ? new JoinedOutput(leftColumns, rightColumns, buildRows, probeRows)
        : new JoinedOutput(leftColumns, rightColumns, probeRows, buildRows);
  }

  private GpuJoinRun.Joined join(EncodedJoinKeys encoded, RunContext context) {
    JoinType type = joinType;
    if (choice.gpu()) {
      GpuJoinRun.Joined joined = GpuJoinRun.join(choice.gpuJoin(), encoded.buildSide(), encoded.probeSide(), type,
          context.cancelled());
      usage.record(true);
      return joined;
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
      return new GpuJoinRun.Joined(result, OperatorReport.Execution.CPU);
    }
  }

  /** Whether the output has the right side's columns after the left's (a semi- or anti-join returns left rows). */
  private boolean projectsRight() {
    return joinType != JoinType.SEMI && joinType != JoinType.ANTI;
  }

  private EquiJoin cpuJoin(RunContext context) {
    return choice.algorithm() == JoinChoice.Algorithm.CPU_RADIX
        ? new CpuRadixJoin(context.threads()) : new CpuNopaHashJoin(context.threads());
  }
}
