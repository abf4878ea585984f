package org.spillway.gpu.calibrate;

import java.util.Collections;
import java.util.List;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.vector.IndexedColumns;

/**
 * The join that the planner's CPU NOPA candidate runs, as a query runs it: the build side bound into a
 * {@link JoinProbe} (its {@code JoinHashTable} built on all cores), then a CPU pipeline over the probe side's columns
 * through the probe into COUNT(*) and the SUM of the probe payloads. {@link CpuJoinProbe} times it on its workloads,
 * so that the rates the cost model charges this candidate are those of the code that runs it.
 */
final class PipelinedHashJoin {
  private static final List<ExprType> COLUMNS = List.of(ExprType.INT64, ExprType.INT64);
  private static final List<List<String>> NO_DICTIONARY = Collections.singletonList(null);

  private PipelinedHashJoin() {}

  /** The result of one join: its rows, the sum of their probe payloads, and the join and table that made them. */
  record Result(long rows, long probePayloadSum, String algorithm) {}

  /** Joins probe rows (key, payload) with build rows (key, payload) on the key, with {@code threads} workers. */
  static Result run(long[] buildKeys, long[] buildPayloads, long[] probeKeys, long[] probePayloads, int threads) {
    JoinProbe probe = new JoinProbe(JoinProbe.Kind.INNER, new int[] {0}, List.of(ExprType.INT64), new int[] {0},
        COLUMNS, false, null).bind(columns(buildKeys, buildPayloads), NO_DICTIONARY, NO_DICTIONARY, threads, () -> false);
    ColumnarPipeline pipeline = new ColumnarPipeline(COLUMNS, List.of(new PipelineStage.HashJoinProbe(probe),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64),
            new AggCall(AggCall.Kind.SUM0, 1, ExprType.INT64)))));
    ColumnBatch input = new ColumnBatch(new ColumnVector[] {long64(probeKeys), long64(probePayloads)},
        probeKeys.length);
    ColumnVector[] out = pipeline.runColumns(List.of(input), threads, () -> false).get(0).columns();
    return new Result(out[0].longs[0], out[1].longs[0], probe.table().direct() ? "pipelined/direct"
        : "pipelined/unchained");
  }

  private static ColumnVector long64(long[] values) {
    return ColumnVector.ofLongs(ExprType.INT64, values, null, values.length);
  }

  /** Two columns held whole, as a pipeline breaker's output that the probe gathers from. */
  private static IndexedColumns columns(long[] keys, long[] payloads) {
    ColumnVector[] columns = {long64(keys), long64(payloads)};
    return new IndexedColumns() {
      @Override public int rows() {
        return keys.length;
      }

      @Override public List<ExprType> types() {
        return COLUMNS;
      }

      @Override public ColumnVector column(int c) {
        return columns[c];
      }

      @Override public ColumnVector gather(int c, int[] ids, int count) {
        return columns[c].gatherOrNull(ids, count);
      }
    };
  }
}
