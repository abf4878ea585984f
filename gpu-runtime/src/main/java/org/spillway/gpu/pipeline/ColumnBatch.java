package org.spillway.gpu.pipeline;

import java.util.ArrayList;
import java.util.List;
import org.spillway.gpu.vector.ColumnVector;

/** Rows of a pipeline's result: one vector per output column, all of {@code rows} rows. */
public record ColumnBatch(ColumnVector[] columns, int rows) {
  /**
   * The batches of {@code parts}, in order, as one batch where they hold at most {@code maxRows} rows in all (a column
   * left out as unread, null, stays null); else as they are.
   */
  public static List<ColumnBatch> joined(List<List<ColumnBatch>> parts, int maxRows) {
    List<ColumnBatch> all = new ArrayList<>();
    long rows = 0;
    for (List<ColumnBatch> part : parts) {
      for (ColumnBatch batch : part) {
        all.add(batch);
        rows += batch.rows();
      }
    }
    if (all.size() <= 1 || rows > maxRows) {
      return all;
    }
    ColumnVector[] columns = new ColumnVector[all.get(0).columns().length];
    for (int c = 0; c < columns.length; c++) {
      List<ColumnVector> pieces = new ArrayList<>(all.size());
      for (ColumnBatch batch : all) {
        ColumnVector piece = batch.columns()[c];
        pieces.add(piece == null || piece.size == batch.rows() ? piece : piece.slice(0, batch.rows()));
      }
      columns[c] = pieces.get(0) == null ? null : ColumnVector.concat(pieces.get(0).type, pieces);
    }
    return List.of(new ColumnBatch(columns, (int) rows));
  }
}
