package org.spillway.gpu.plan;

import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * A semi- or anti-join that builds its hash table on the returned (left) side and streams the other side through
 * it (DuckDB's RIGHT_SEMI and RIGHT_ANTI): a small filtered side is built instead of a large subquery side. The probe
 * side's pipeline ends in a {@link JoinProbe.Kind#MARK_BUILD} probe that marks each build row a probe row matches
 * (under the residual, if any); afterwards the marked build rows are a semi-join's output and the unmarked ones an
 * anti-join's. Semi- and anti-joins stacked on the same build rows and keys whose probe sides read one table run as
 * one such node: the marking probe keeps a mark per join ({@link MarkProbeSpec}), the table streams once, and the
 * output is the build rows that every join keeps. A pipeline breaker: its output is the source of the pipeline
 * above.
 * <p>The probe side's pipeline may run on the GPU, which then sets every mark itself. Where the CPU marks instead
 * (the cost model's choice, or a condition the GPU cannot compute) the planner may still reduce the probe side on the
 * GPU ({@link #withGpuReduction}): a GPU pass streams the probe side's scan through its stages and a semi-join probe
 * of the build rows' keys, and returns only the rows some build row has the key of; the CPU then marks those (the
 * semi-join reduction of Bernstein and Chiu, a join filter pushed into the scan).
 */
public final class MarkJoinNode implements PlanNode {
  private final JoinBuild build;
  /** The probe side's pipeline; its last stage is the marking probe. */
  private final ProbePipelineNode probeSide;
  private final int markStage;
  /** Per mark: a semi-join keeps the marked build rows, an anti-join the others. */
  private final boolean[] semi;
  /** The GPU pass that reduces the probe side before the CPU marks it, or null where the probe side runs as planned. */
  private GpuPipelineChoice reduction;

  public MarkJoinNode(JoinBuild build, ProbePipelineNode probeSide, boolean semi) {
    this(build, probeSide, List.of(semi));
  }

  /** Per mark of the marking probe (in its order): whether its join is a semi-join (else an anti-join). */
  public MarkJoinNode(JoinBuild build, ProbePipelineNode probeSide, List<Boolean> semi) {
    this.build = build;
    this.probeSide = probeSide;
    this.markStage = probeSide.stages().size() - 1;
    this.semi = new boolean[semi.size()];
    for (int m = 0; m < this.semi.length; m++) {
      this.semi[m] = semi.get(m);
    }
    if (!(probeSide.stages().get(markStage) instanceof PipelineStage.HashJoinProbe h)
        || h.probe().kind() != JoinProbe.Kind.MARK_BUILD) {
      throw new IllegalArgumentException("the probe side of a mark join must end in a marking probe: "
          + probeSide.stages());
    }
    if (h.probe().markCount() != this.semi.length) {
      throw new IllegalArgumentException(semi.size() + " joins over a marking probe of " + h.probe().markCount()
          + " marks");
    }
  }

  /** Reduces the probe side in a GPU pass as {@code gpu} says before the CPU marks it (null: the probe side as planned). */
  public MarkJoinNode withGpuReduction(GpuPipelineChoice gpu) {
    if (gpu != null && probeSide.onGpu()) {
      throw new IllegalArgumentException("the probe side marks on the GPU already");
    }
    this.reduction = gpu;
    return this;
  }

  @Override public List<ExprType> types() {
    return build.node().types();
  }

  @Override public boolean cpuOnly() {
    return build.node().cpuOnly() && probeSide.cpuOnly() && reduction == null;
  }

  @Override public NodeOutput run(RunContext context) {
    BitSet all = new BitSet();
    all.set(0, types().size());
    return run(context, all);
  }

  @Override public NodeOutput run(RunContext context, BitSet read) {
    JoinProbe probe = ((PipelineStage.HashJoinProbe) probeSide.stages().get(markStage)).probe();
    // The build side's rows are the output: what is read above, plus the keys and what the residual reads.
    BitSet buildRead = probeSide.buildColumnsRead(markStage, new BitSet());
    buildRead.or(read);
    for (int key : probe.buildKeys()) {
      buildRead.set(key);
    }
    long start = System.nanoTime();
    NodeOutput rows = build.node().run(context, buildRead);
    long built = System.nanoTime();
    // a probe side on the GPU builds its own table from the rows and sets the marks: the CPU's table waits until
    // the CPU probes (the GPU's fallback, or the CPU's share of the scan)
    JoinProbe bound = probeSide.onGpu() && reduction == null ? ProbePipelineNode.bindRows(probe, build, rows, start)
        : ProbePipelineNode.bind(probe, build, rows, context, start);
    long probing = System.nanoTime();
    if (reduction != null) {
      markReduced(context, rows, bound);
    } else {
      probeSide.run(context, new BitSet(), s -> s == markStage ? bound : null);
    }
    long probed = System.nanoTime();
    context.checkCancelled("before gathering the rows of " + build.label());
    int[] kept = bound.markedBuildRows(semi);
    ColumnVector[] columns = new ColumnVector[types().size()];
    for (int c = read.nextSetBit(0); c >= 0 && c < columns.length; c = read.nextSetBit(c + 1)) {
      columns[c] = rows.gatherOnce(c, kept, kept.length);
    }
    RunContext.trace("cpu mark join %s: %d of %d build rows kept (%s)", build.label(), kept.length, rows.rows(),
        Arrays.toString(semi).replace("true", "matched").replace("false", "unmatched"));
    // its own work, building its table and gathering the rows it keeps: the probe side's pipeline reports itself
    context.report(this, OperatorReport.Execution.CPU, kept.length, built + (probed - probing));
    return new BatchOutput(kept.length == 0 ? List.of() : List.of(new ColumnBatch(columns, kept.length)),
        types());
  }

  /**
   * The probe side reduced on the GPU to the rows whose keys some build row has, then marked by {@code bound} on the
   * CPU: the GPU pass returns only the columns the marking probe reads.
   */
  private void markReduced(RunContext context, NodeOutput rows, JoinProbe bound) {
    JoinBuild given = new JoinBuild(new GivenRows(rows), build.buildKeyDictionaries(), build.probeKeyDictionaries(),
        build.label());
    ProbePipelineNode reducing = probeSide.reducedBy(given, reduction);
    List<ExprType> markInput = probeSide.lastStageInputTypes();
    ColumnarPipeline marking = new ColumnarPipeline(markInput, List.of(new PipelineStage.HashJoinProbe(bound)),
        new BitSet());
    BitSet markRead = marking.inputColumnsRead();
    NodeOutput reduced = reducing.run(context, markRead);
    context.checkCancelled("before marking the rows of " + build.label());
    long start = System.nanoTime();
    marking.runColumns(reduced.batches(markRead), context.threads(), context.cancelled());
    RunContext.trace("cpu marking of %s over the %d rows the GPU kept: %.1f ms", build.label(), reduced.rows(),
        (System.nanoTime() - start) / 1e6);
  }

  /** Rows a node ran already, handed to a second consumer (the reducing pass's semi-join build side). */
  private record GivenRows(NodeOutput rows) implements PlanNode {
    @Override public List<ExprType> types() {
      return rows.types();
    }

    @Override public NodeOutput run(RunContext context) {
      return rows;
    }

    @Override public boolean cpuOnly() {
      return true;
    }
  }
}
