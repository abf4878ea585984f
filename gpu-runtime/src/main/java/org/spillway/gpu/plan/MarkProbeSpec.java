package org.spillway.gpu.plan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;

/**
 * The marking probe of a {@link MarkJoinNode} that stands for several semi- and anti-joins of one build side, as
 * the planner describes it: the probe key columns of the pipeline (and their types) joined with the build key
 * columns of a build side of {@code buildTypes}, and per join the condition a candidate pair must meet to mark its
 * build row (null: the key match alone), reading the joined row, build side first.
 */
public record MarkProbeSpec(int[] probeKeys, List<ExprType> probeKeyTypes, int[] buildKeys, List<ExprType> buildTypes,
    List<Expr> conditions, List<Boolean> semi) {
  public MarkProbeSpec {
    probeKeys = probeKeys.clone();
    buildKeys = buildKeys.clone();
    probeKeyTypes = List.copyOf(probeKeyTypes);
    buildTypes = List.copyOf(buildTypes);
    conditions = Collections.unmodifiableList(new ArrayList<>(conditions));
    semi = List.copyOf(semi);
    if (semi.size() != conditions.size()) {
      throw new IllegalArgumentException(semi.size() + " joins for " + conditions.size() + " conditions");
    }
  }

  /**
   * The pipeline's last stage, its probe not yet bound to a table; key types that cannot compare fail here. An
   * anti-join's mark settles its build row ({@link JoinProbe#marking(int[], List, int[], List, List, List)}).
   */
  public PipelineStage stage() {
    return new PipelineStage.HashJoinProbe(JoinProbe.marking(probeKeys, probeKeyTypes, buildKeys, buildTypes,
        conditions, semi));
  }
}
