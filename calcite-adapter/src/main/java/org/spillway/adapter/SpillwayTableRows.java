package org.spillway.adapter;

import org.apache.arrow.vector.FieldVector;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.spillway.storage.StoredTable;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The rows of a bare scan, which are also the stored table's columns: Calcite enumerates them
 * ({@link SpillwayScanEnumerator}), a client that takes columns ({@link SpillwayColumnarCapture}) copies the
 * stored Arrow batches ({@link SpillwayStoredColumnCopier}).
 */
final class SpillwayTableRows extends AbstractEnumerable<Object> implements SpillwayColumnarResult {
  private final StoredTable table;
  private final int[] fields;
  private final boolean scalar;
  private final AtomicBoolean cancel;

  SpillwayTableRows(StoredTable table, int[] fields, boolean scalar, AtomicBoolean cancel) {
    this.table = table;
    this.fields = fields;
    this.scalar = scalar;
    this.cancel = cancel;
  }

  @Override public Enumerator<Object> enumerator() {
    return new SpillwayScanEnumerator(table, fields, scalar, cancel);
  }

  @Override public int chunkCount() {
    return table.batches().size();
  }

  @Override public int chunkRows(int chunk) {
    return table.batches().get(chunk).getRowCount();
  }

  @Override public int columnCount() {
    return fields.length;
  }

  @Override public Optional<ColumnCopier> copier(int column, FieldVector target) {
    return SpillwayStoredColumnCopier.of(table, fields[column], target);
  }

  @Override public boolean cancelled() {
    return cancel != null && cancel.get();
  }
}
