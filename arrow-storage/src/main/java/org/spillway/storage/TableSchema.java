package org.spillway.storage;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The ordered columns of a table; column names are unique (case-insensitive). */
public record TableSchema(List<ColumnDef> columns) {
  public TableSchema {
    columns = List.copyOf(columns);
    if (columns.isEmpty()) {
      throw new StorageException("a table needs at least one column");
    }
    Set<String> seen = new HashSet<>();
    for (ColumnDef column : columns) {
      if (!seen.add(column.name())) {
        throw new StorageException("duplicate column name '" + column.name() + "'");
      }
    }
  }

  /** A schema of the given columns in order. */
  public static TableSchema of(ColumnDef... columns) {
    return new TableSchema(List.of(columns));
  }

  /** Index of the column with this name (case-insensitive), or -1 if there is none. */
  public int indexOf(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(lower)) {
        return i;
      }
    }
    return -1;
  }

  /** The column at this index. */
  public ColumnDef column(int index) {
    return columns.get(index);
  }

  /** The column with this name; StorageException if there is none. */
  public ColumnDef column(String name) {
    int index = indexOf(name);
    if (index < 0) {
      throw new StorageException("no column '" + name + "' in " + names());
    }
    return columns.get(index);
  }

  /** Number of columns. */
  public int size() {
    return columns.size();
  }

  /** Column names in order. */
  public List<String> names() {
    List<String> names = new ArrayList<>(columns.size());
    for (ColumnDef column : columns) {
      names.add(column.name());
    }
    return names;
  }

  @Override
  public String toString() {
    return columns.toString();
  }
}
