package org.spillway.adapter;

import org.apache.calcite.linq4j.Enumerator;
import org.spillway.storage.ColumnReader;
import org.spillway.storage.StoredTable;

import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;

/** Enumerates the rows of a stored table batch by batch, materializing only the requested columns. */
final class SpillwayScanEnumerator implements Enumerator<Object> {
  private final StoredTable table;
  private final int[] fields;
  private final boolean scalar;
  private final AtomicBoolean cancel;
  private final int batchCount;
  private ColumnReader[] readers;
  private int batch = -1;
  private int row;
  private int batchRows;
  private Object current;

  SpillwayScanEnumerator(StoredTable table, int[] fields, boolean scalar, AtomicBoolean cancel) {
    this.table = table;
    this.fields = fields;
    this.scalar = scalar;
    this.cancel = cancel;
    this.batchCount = table.batches().size();
  }

  @Override public Object current() {
    return current;
  }

  @Override public boolean moveNext() {
    while (row >= batchRows) {
      if (++batch >= batchCount) {
        return false;
      }
      openBatch();
    }
    // Every row: a Calcite operator above (a nested loop join's outer input, say) may spend long between rows,
    // and this is where it asks for more; the flag is one plain read.
    if (cancel != null && cancel.get()) {
      throw new CancellationException("query cancelled while scanning " + table.name());
    }
    current = scalar ? readers[0].get(row) : readRow(row);
    row++;
    return true;
  }

  private void openBatch() {
    readers = new ColumnReader[fields.length];
    for (int i = 0; i < fields.length; i++) {
      readers[i] = table.reader(batch, fields[i]);
    }
    batchRows = table.batches().get(batch).getRowCount();
    row = 0;
  }

  private Object[] readRow(int r) {
    Object[] values = new Object[readers.length];
    for (int i = 0; i < readers.length; i++) {
      values[i] = readers[i].get(r);
    }
    return values;
  }

  @Override public void reset() {
    batch = -1;
    row = 0;
    batchRows = 0;
  }

  @Override public void close() {
    // The batches belong to the catalog; nothing to release per query.
  }
}
