package org.spillway.gpu.plan;

import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.device.MemoryGuard;
import org.spillway.gpu.pipeline.sort.ColumnSort;
import org.spillway.gpu.pipeline.sort.SortKey;

import java.util.List;

/** ORDER BY, top-N, LIMIT and OFFSET: runs its input, then sorts all of its rows on the CPU. */
public final class SortNode implements PlanNode {
  private final PlanNode input;
  private final ColumnSort sort;

  /**
   * Sorts the rows of {@code input} by {@code keys} (none: they keep their order), skips {@code offset} rows and then
   * keeps {@code fetch} (negative: all the rest); a fetch makes it a top-N.
   */
  public SortNode(PlanNode input, List<SortKey> keys, long offset, long fetch) {
    this.input = input;
    this.sort = new ColumnSort(input.types(), keys, offset, fetch);
  }

  @Override public List<ExprType> types() {
    return sort.types();
  }

  @Override public boolean cpuOnly() {
    return input.cpuOnly();
  }

  @Override public NodeOutput run(RunContext context) {
    List<ColumnBatch> in = input.run(context).batches();
    context.checkCancelled("before a sort");
    long rows = in.stream().mapToLong(ColumnBatch::rows).sum();
    // the row ids and their merge scratch, and each column laid end to end and gathered (an 8-byte lane or
    // reference and a null flag per value, twice)
    MemoryGuard.require("sorting " + rows + " rows of " + sort.types().size() + " columns",
        rows * (2L * Integer.BYTES + 2L * sort.types().size() * (Long.BYTES + 1)));
    long start = System.nanoTime();
    long[] phases = new long[ColumnSort.PHASES];
    List<ColumnBatch> out = sort.run(in, context.threads(), context.cancelled(), phases);
    RunContext.trace("cpu sort (%d threads) of %d rows: %.1f ms (columns laid out in %.1f ms, keys prepared in %.1f,"
        + " rows ordered in %.1f and gathered in %.1f)", context.threads(), rows, (System.nanoTime() - start) / 1e6,
        phases[0] / 1e6, phases[1] / 1e6, phases[2] / 1e6, phases[3] / 1e6);
    NodeOutput output = new BatchOutput(out, sort.types());
    context.report(this, OperatorReport.Execution.CPU, output.rows(), start);
    return output;
  }
}
