package org.spillway.storage;

/** The SQL type families a stored column can have. */
public enum ColumnKind {
  INTEGER, BIGINT, DOUBLE, DECIMAL, DATE, CHAR, VARCHAR;

  /** Whether values of this kind are strings (stored as Utf8 or dictionary codes). */
  public boolean isText() {
    return this == CHAR || this == VARCHAR;
  }
}
