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
   * Aggregation: output columns are the group keys (input columns) then one per call. Without keys it yields
   * exactly one row, also over no input, as SQL requires. {@code sortedRuns} says that the one group key arrives
   * clustered (non-decreasing in input order, NULLs aside), so the CPU backend aggregates runs of equal keys
   * without a hash table ({@code aggregate.SortedRunAggregation}); it checks the order as it goes and hashes if it is not so.
   */
  record Aggregate(int[] groupKeys, List<AggCall> calls, boolean sortedRuns, long[][] keyRanges)
      implements PipelineStage {
    /**
     * {@code keyRanges[k]}: the lowest and highest value group key k can hold (from the statistics of the column it
     * comes from), or null where unknown; null for none. The GPU packs keys whose ranges are known into fewer bits;
     * the CPU backend does not need them. A value outside its range is no error: the GPU leaves the run to the CPU.
     */
    public Aggregate {
      groupKeys = groupKeys.clone();
      calls = List.copyOf(calls);
      if (sortedRuns && groupKeys.length != 1) {
        throw new IllegalArgumentException("an aggregation over sorted runs groups by one key, not "
            + groupKeys.length);
      }
      if (keyRanges != null) {
        if (keyRanges.length != groupKeys.length) {
          throw new IllegalArgumentException(keyRanges.length + " key ranges for " + groupKeys.length + " group keys");
        }
        keyRanges = keyRanges.clone();
        for (int k = 0; k < keyRanges.length; k++) {
          long[] range = keyRanges[k];
          if (range != null && (range.length != 2 || range[0] > range[1])) {
            throw new IllegalArgumentException("key range " + java.util.Arrays.toString(range) + " of group key " + k
                + " is not {low, high} with low <= high");
          }
          keyRanges[k] = range == null ? null : range.clone();
        }
      }
    }

    /** An aggregation without key ranges. */
    public Aggregate(int[] groupKeys, List<AggCall> calls, boolean sortedRuns) {
      this(groupKeys, calls, sortedRuns, null);
    }

    /** The range of group key {@code k}, or null where unknown. */
    public long[] keyRange(int k) {
      return keyRanges == null ? null : keyRanges[k];
    }

    /** This aggregation with the given key ranges (see the record's comment). */
    public Aggregate withKeyRanges(long[][] ranges) {
      return new Aggregate(groupKeys, calls, sortedRuns, ranges);
    }

    /** Whether keys of this type may form sorted runs: they compare as their words (integers, dates, decimals). */
    public static boolean sortedRunsKey(ExprType type) {
      return switch (type.kind()) {
        case INT32, INT64, DATE, DECIMAL -> true;
        default -> false;
      };
    }

    /** A hash aggregation. */
    public Aggregate(int[] groupKeys, List<AggCall> calls) {
      this(groupKeys, calls, false);
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

  /**
   * Whether a pipeline of {@code stages} gives at most one row: a global aggregate followed by nothing but
   * projections and filters.
   */
  static boolean givesAtMostOneRow(List<PipelineStage> stages) {
    for (int s = stages.size() - 1; s >= 0; s--) {
      PipelineStage stage = stages.get(s);
      if (stage instanceof Aggregate aggregate) {
        return aggregate.groupKeys().length == 0;
      }
      if (!(stage instanceof Project || stage instanceof Filter)) {
        return false;
      }
    }
    return false;
  }

  /** {@code stages} followed by a filter on {@code condition} over their output. */
  static List<PipelineStage> filteredAfter(List<PipelineStage> stages, Expr condition) {
    List<PipelineStage> filtered = new ArrayList<>(stages);
    filtered.add(new Filter(condition));
    return filtered;
  }
}
