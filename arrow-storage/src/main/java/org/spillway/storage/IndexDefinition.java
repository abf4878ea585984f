package org.spillway.storage;

/**
 * A secondary index the catalog keeps with a table: its name (lower case, unique in the catalog), the table and
 * the column it is built over, and its kind by name (e.g. {@code BTREE}). The catalog does not know the kinds:
 * the engine builds the index from this definition, so storage stays independent of it.
 */
public record IndexDefinition(String name, String table, String column, String kind) {
  public IndexDefinition {
    if (name == null || table == null || column == null || kind == null) {
      throw new StorageException("an index needs a name, a table, a column and a kind, got " + name + " on "
          + table + " (" + column + ") using " + kind);
    }
  }
}
