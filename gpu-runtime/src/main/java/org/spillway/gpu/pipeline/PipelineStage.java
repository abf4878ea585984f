package org.spillway.gpu.pipeline;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.vector.ExprType;
import java.util.ArrayList;
import java.util.List;

/**
 * One operator of a fused columnar pipeline: a filter, a projection, the probe of a hash join (streaming
 * operators) or an aggregation (a pipeline breaker).
 */
public sealed interface PipelineStage {
  /** The types of this stage's output columns, given its input's. */
  List<ExprType> outputTypes(List<ExprType> input);

  /** Keeps the rows for which the condition is TRUE. */
  record Filter(Expr condition) implements PipelineStage {
    public Filter {
      if (condition.type().kind() != ExprType.Kind.BOOLEAN) {
        throw new IllegalArgumentException("filter condition must be BOOLEAN, got " + condition.type());
      }
    }

    @Override public List<ExprType> outputTypes(List<ExprType> input) {
      return input;
    }
  }

  /** Computes the output columns from the input columns, row by row. */
  record Project(List<Expr> expressions) implements PipelineStage {
    public Project {
      expressions = List.copyOf(expressions);
    }

    @Override public List<ExprType> outputTypes(List<ExprType> input) {
      return expressions.stream().map(Expr::type).toList();
    }
  }

  /**
   * Hash aggregation: output columns are the group keys (input columns) then one per call. Without keys
   * it yields exactly one row, also over no input, as SQL requires.
   */
  record Aggregate(int[] groupKeys, List<AggCall> calls) implements PipelineStage {
    public Aggregate {
      groupKeys = groupKeys.clone();
      calls = List.copyOf(calls);
    }

    @Override public List<ExprType> outputTypes(List<ExprType> input) {
      List<ExprType> out = new ArrayList<>();
      for (int key : groupKeys) {
        out.add(input.get(key));
      }
      calls.forEach(c -> out.add(c.resultType()));
      return out;
    }
  }

  /** Joins each row with the rows of a build side that share its key ({@link JoinProbe}). */
  record HashJoinProbe(JoinProbe probe) implements PipelineStage {
    @Override public List<ExprType> outputTypes(List<ExprType> input) {
      return probe.outputTypes(input);
    }
  }
}
