package org.spillway.gpu.pipeline.sort;

/**
 * One key of a sort: an input column, its direction and where its NULLs go (independent of the direction, as
 * SQL's {@code NULLS FIRST} / {@code NULLS LAST} are).
 */
public record SortKey(int column, boolean descending, boolean nullsFirst) {
  public SortKey {
    if (column < 0) {
      throw new IllegalArgumentException("sort key column " + column + " is negative");
    }
  }

  /** An ascending key with NULLs last. */
  public static SortKey ascending(int column) {
    return new SortKey(column, false, false);
  }

  @Override public String toString() {
    return "$" + column + (descending ? " DESC" : " ASC") + (nullsFirst ? " NULLS FIRST" : " NULLS LAST");
  }
}
