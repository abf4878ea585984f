package org.spillway.gpu.plan;

import java.util.List;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;

/**
 * The probe of a pipelined hash join as the planner describes it: its {@link JoinKind}, the probe key columns of
 * the pipeline (and their types) joined with the build key columns of a build side of {@code buildTypes}, whether
 * the joined row puts the build side's columns first, and the condition beyond key equality that each candidate
 * pair must meet (null: none; it reads the joined row). {@link #stage} makes the pipeline stage that probes.
 */
public record JoinProbeSpec(JoinKind kind, int[] probeKeys, List<ExprType> probeKeyTypes, int[] buildKeys,
    List<ExprType> buildTypes, boolean buildFirst, Expr residual) {
  public JoinProbeSpec {
    probeKeys = probeKeys.clone();
    buildKeys = buildKeys.clone();
    probeKeyTypes = List.copyOf(probeKeyTypes);
    buildTypes = List.copyOf(buildTypes);
  }

  /**
   * The stage of the probing pipeline, its probe not yet bound to a table ({@link ProbePipelineNode} builds one
   * when it runs); key types that cannot compare fail here, saying which pair.
   */
  public PipelineStage stage() {
    return new PipelineStage.HashJoinProbe(new JoinProbe(kind.probeKind(), probeKeys, probeKeyTypes, buildKeys,
        buildTypes, buildFirst, residual));
  }
}
