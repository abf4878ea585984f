package org.spillway.storage;

import java.util.Locale;
import java.util.Objects;

/** A named, typed column of a table; names are kept lower-case. */
public record ColumnDef(String name, ColumnType type) {
  public ColumnDef {
    Objects.requireNonNull(name, "column name");
    Objects.requireNonNull(type, "column type of " + name);
    if (name.isBlank()) {
      throw new StorageException("column name must not be blank");
    }
    name = name.toLowerCase(Locale.ROOT);
  }

  /** Shorthand for {@code new ColumnDef(name, ColumnType.parse(sqlType))}. */
  public static ColumnDef of(String name, String sqlType) {
    return new ColumnDef(name, ColumnType.parse(sqlType));
  }

  @Override
  public String toString() {
    return name + " " + type + (type.nullable() ? "" : " NOT NULL");
  }
}
