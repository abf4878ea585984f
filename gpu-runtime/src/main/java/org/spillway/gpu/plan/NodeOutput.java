package org.spillway.gpu.plan;

import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.IndexedColumns;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.util.BitSet;
import java.util.List;

/**
 * The output of a runtime node: rows whose columns are read when asked for, all of them or at the row ids a
 * join paired (late materialization: a join reads its key columns, and only the rows it outputs of the rest).
 */
public interface NodeOutput extends IndexedColumns {
  /**
   * Column {@code c} at rows {@code ids} (valid rows), read once: as {@link #gather}, which may lay the whole column
   * out first for the many gathers of a join's probe.
   */
  default ColumnVector gatherOnce(int c, int[] ids, int count) {
    return gather(c, ids, count);
  }

  /** Every column as batches, for a pipeline above or for the rows handed to Calcite. */
  default List<ColumnBatch> batches() {
    BitSet all = new BitSet();
    all.set(0, types().size());
    return batches(all);
  }

  /**
   * The columns in {@code read} as batches, the others null: a pipeline above reads only some (a COUNT(*) over
   * a join none), and gathering the rest at a join's row ids could take more memory than the query has.
   */
  default List<ColumnBatch> batches(BitSet read) {
    if (rows() == 0) {
      return List.of();
    }
    ColumnVector[] columns = new ColumnVector[types().size()];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = read.get(c) ? column(c) : null;
    }
    return List.of(new ColumnBatch(columns, rows()));
  }
}
