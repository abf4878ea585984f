package org.spillway.storage;

import java.util.List;

/** Row count and per-column statistics of a stored table, computed when it was committed. */
public record TableStatistics(long rowCount, List<ColumnStatistics> columns) {
  public TableStatistics {
    columns = List.copyOf(columns);
  }

  /** Statistics of the column with this name (case-insensitive). */
  public ColumnStatistics column(String name) {
    for (ColumnStatistics column : columns) {
      if (column.column().equalsIgnoreCase(name)) {
        return column;
      }
    }
    throw new StorageException("no statistics for column '" + name + "'");
  }

  public ColumnStatistics column(int index) {
    return columns.get(index);
  }
}
