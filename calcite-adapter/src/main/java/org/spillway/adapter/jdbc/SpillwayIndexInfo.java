package org.spillway.adapter.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import javax.sql.rowset.CachedRowSet;
import javax.sql.rowset.RowSetMetaDataImpl;
import javax.sql.rowset.RowSetProvider;
import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.schema.SchemaPlus;
import org.spillway.adapter.SpillwayIndexes;
import org.spillway.adapter.SpillwaySchema;
import org.spillway.gpu.plan.TableIndex;
import org.spillway.storage.Catalog;
import org.spillway.storage.IndexDefinition;
import org.spillway.storage.StoredTable;

/**
 * {@link DatabaseMetaData#getIndexInfo}: the indexes CREATE INDEX recorded in the catalogs of the connection's
 * schemas (Calcite's driver knows none), one row each, in the standard columns and order, plus INDEX_KIND, and the
 * bytes and build time of an index this process built (CREATE INDEX, or the first query through it; NULL before,
 * as PAGES, its bytes in 4 KiB pages). Every index is unique (its column's keys are), clustered (the table's order is
 * the key's), over one column.
 */
final class SpillwayIndexInfo {
  private static final String[] COLUMNS = {"TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "NON_UNIQUE", "INDEX_QUALIFIER",
      "INDEX_NAME", "TYPE", "ORDINAL_POSITION", "COLUMN_NAME", "ASC_OR_DESC", "CARDINALITY", "PAGES",
      "FILTER_CONDITION", "INDEX_KIND", "INDEX_BYTES", "BUILD_MS"};
  private static final int[] TYPES = {Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.BOOLEAN, Types.VARCHAR,
      Types.VARCHAR, Types.SMALLINT, Types.SMALLINT, Types.VARCHAR, Types.VARCHAR, Types.BIGINT, Types.BIGINT,
      Types.VARCHAR, Types.VARCHAR, Types.BIGINT, Types.DOUBLE};
  /** The page PAGES counts in: the B+tree's node. */
  private static final long PAGE_BYTES = 4096;

  private SpillwayIndexInfo() {}

  /**
   * The indexes of {@code table} (case-insensitive) in the schema {@code schema} (null: every schema); the
   * arguments are getIndexInfo's, {@code unique} and {@code approximate} change nothing as every index is unique
   * and the cardinality, the table's row count, exact.
   */
  static ResultSet of(Connection connection, String schema, String table) throws SQLException {
    SchemaPlus root = connection.unwrap(CalciteConnection.class).getRootSchema();
    List<Object[]> rows = new ArrayList<>();
    for (String schemaName : root.getSubSchemaNames()) {
      SchemaPlus sub = root.getSubSchema(schemaName);
      if (table == null || sub == null || schema != null && !schema.equalsIgnoreCase(schemaName)
          || !(sub.unwrap(CalciteSchema.class).schema instanceof SpillwaySchema spillway)) {
        continue;  // getIndexInfo names one table; other schemas have no indexes
      }
      Catalog catalog = spillway.catalog();
      SpillwayIndexes built = SpillwayIndexes.of(catalog);
      for (IndexDefinition index : catalog.indexes(table)) {
        long cardinality = catalog.table(index.table()).map(StoredTable::rowCount).orElse(0L);
        TableIndex memory = built.built(index.name()).orElse(null);
        rows.add(new Object[] {null, schemaName, index.table(), false, null, index.name(),
            DatabaseMetaData.tableIndexOther, (short) 1, index.column(), "A", cardinality,
            memory == null ? null : (memory.sizeBytes() + PAGE_BYTES - 1) / PAGE_BYTES, null, index.kind(),
            memory == null ? null : memory.sizeBytes(), memory == null ? null : memory.buildMillis()});
      }
    }
    rows.sort((a, b) -> ((String) a[5]).compareTo((String) b[5]));
    return rowSet(rows);
  }

  private static ResultSet rowSet(List<Object[]> rows) throws SQLException {
    RowSetMetaDataImpl metadata = new RowSetMetaDataImpl();
    metadata.setColumnCount(COLUMNS.length);
    for (int i = 0; i < COLUMNS.length; i++) {
      metadata.setColumnName(i + 1, COLUMNS[i]);
      metadata.setColumnLabel(i + 1, COLUMNS[i]);
      metadata.setColumnType(i + 1, TYPES[i]);
    }
    CachedRowSet set = RowSetProvider.newFactory().createCachedRowSet();
    set.setMetaData(metadata);
    // the row set inserts each row before those inserted earlier: last row first
    for (int r = rows.size() - 1; r >= 0; r--) {
      Object[] row = rows.get(r);
      set.moveToInsertRow();
      for (int i = 0; i < row.length; i++) {
        if (row[i] == null) {
          set.updateNull(i + 1);
        } else {
          set.updateObject(i + 1, row[i]);
        }
      }
      set.insertRow();
      set.moveToCurrentRow();
    }
    set.beforeFirst();
    return set;
  }
}
