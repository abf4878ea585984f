package org.spillway.adapter;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.jdbc.CalcitePrepare;
import org.apache.calcite.jdbc.CalcitePrepare.CalciteSignature;
import org.spillway.gpu.index.IndexKind;
import org.spillway.gpu.index.SortedKeyColumn;
import org.spillway.gpu.index.SortedKeyIndex;
import org.spillway.gpu.index.UnsortedKeysException;
import org.spillway.runtime.SqlStateException;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnKind;
import org.spillway.storage.ColumnReader;
import org.spillway.storage.IndexDefinition;
import org.spillway.storage.StorageAllocator;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;

/**
 * {@code CREATE INDEX name ON table (column) [USING kind]} and {@code DROP INDEX [IF EXISTS] name}, which Calcite's
 * parser does not know: {@link SpillwayPrepare} recognizes them by their text and runs them when it prepares them,
 * as Calcite runs DDL, and JDBC reports an update count of 0. CREATE INDEX builds the index over the column's
 * values (which proves they are sorted, unique keys without NULL, as every kind needs), frees it, and only then
 * records the definition in the catalog; the kind defaults to BINARY_SEARCH. Each failure is one error with its
 * SQLSTATE that names the index, the table and the column, and for bad keys the first offending row.
 */
public final class SpillwayIndexStatements {
  private static final System.Logger LOG = System.getLogger(SpillwayIndexStatements.class.getName());
  private static final IndexKind DEFAULT_KIND = IndexKind.BINARY_SEARCH;
  /** Other names of the kinds, as the literature spells them. */
  private static final Map<String, IndexKind> KIND_ALIASES = Map.of("B_PLUS_TREE", IndexKind.BTREE,
      "BPLUSTREE", IndexKind.BTREE, "RADIX_SPLINE", IndexKind.RADIXSPLINE, "BINARYSEARCH", IndexKind.BINARY_SEARCH);
  private static final String ID = "(\"[^\"]+\"|[A-Za-z_][A-Za-z0-9_$]*)";
  private static final int FLAGS = Pattern.CASE_INSENSITIVE | Pattern.DOTALL;
  private static final Pattern INDEX_STATEMENT = Pattern.compile("\\s*(create|drop)\\s+index\\b.*", FLAGS);
  private static final Pattern CREATE = Pattern.compile("\\s*create\\s+index\\s+" + ID + "\\s+on\\s+(?:" + ID
      + "\\s*\\.\\s*)?" + ID + "\\s*\\(\\s*" + ID + "\\s*\\)(?:\\s+using\\s+([A-Za-z_]+))?\\s*;?\\s*", FLAGS);
  private static final Pattern DROP = Pattern.compile("\\s*drop\\s+index\\s+(if\\s+exists\\s+)?" + ID
      + "\\s*;?\\s*", FLAGS);

  static final String SYNTAX_ERROR = "42601";
  static final String UNDEFINED_TABLE = "42P01";
  static final String UNDEFINED_COLUMN = "42703";
  static final String UNDEFINED_OBJECT = "42704";
  static final String DUPLICATE_OBJECT = "42P07";
  static final String DATATYPE_MISMATCH = "42804";
  static final String INVALID_PARAMETER = "22023";
  static final String NOT_NULL_VIOLATION = "23502";
  static final String UNIQUE_VIOLATION = "23505";
  static final String DATA_EXCEPTION = "22000";

  private SpillwayIndexStatements() {}

  /** Whether {@code sql} is a CREATE INDEX or DROP INDEX statement, well-formed or not. */
  public static boolean matches(String sql) {
    return INDEX_STATEMENT.matcher(sql).matches();
  }

  /** Runs the statement (one {@link #matches} accepts) and returns the signature of DDL: no rows, count 0. */
  static <T> CalciteSignature<T> execute(String sql, CalcitePrepare.Context context) {
    Matcher create = CREATE.matcher(sql);
    Matcher drop = DROP.matcher(sql);
    if (create.matches()) {
      createIndex(catalog(context, create.group(2)), name(create.group(1)), name(create.group(3)),
          name(create.group(4)), kind(create.group(5)));
    } else if (drop.matches()) {
      dropIndex(catalog(context, null), name(drop.group(2)), drop.group(1) != null);
    } else {
      throw new IndexStatementException(SYNTAX_ERROR, "cannot parse the statement; write CREATE INDEX name ON table"
          + " (column) [USING BINARY_SEARCH | BTREE | HARMONIA | RADIXSPLINE] or DROP INDEX [IF EXISTS] name: "
          + (sql.length() > 120 ? sql.substring(0, 117) + "..." : sql.strip()));
    }
    return new CalciteSignature<>(sql, List.of(), Map.of(), null, List.of(), Meta.CursorFactory.OBJECT, null,
        List.of(), -1, null, Meta.StatementType.OTHER_DDL);
  }

  private static void createIndex(Catalog catalog, String name, String tableName, String columnName, IndexKind kind) {
    String what = "cannot create index " + name + " on " + tableName + " (" + columnName + "): ";
    if (catalog.index(name).isPresent()) {
      throw new IndexStatementException(DUPLICATE_OBJECT, what + "an index of that name exists");
    }
    StoredTable table = catalog.table(tableName).orElseThrow(() ->
        new IndexStatementException(UNDEFINED_TABLE, what + "table " + tableName + " does not exist"));
    int column = table.schema().indexOf(columnName);
    if (column < 0) {
      throw new IndexStatementException(UNDEFINED_COLUMN, what + "table " + table.name() + " has no column "
          + columnName + "; its columns: " + table.schema().names());
    }
    ColumnDef def = table.schema().column(column);
    ColumnKind type = def.type().kind();
    if (type != ColumnKind.INTEGER && type != ColumnKind.BIGINT && type != ColumnKind.DATE) {
      throw new IndexStatementException(DATATYPE_MISMATCH, what + "column " + def.name() + " is "
          + def.type().toDeclaration() + ", an index takes INTEGER, BIGINT or DATE keys");
    }
    try {
      catalog.createIndex(new IndexDefinition(name, tableName, columnName, kind.name()),
          index -> build(table, column, kind, what));
    } catch (StorageException e) {
      throw new IndexStatementException(DATA_EXCEPTION, what + e.getMessage(), e);
    }
  }

  /** Builds the index over the column's keys, copied into one buffer in stored order, and frees it again. */
  private static void build(StoredTable table, int column, IndexKind kind, String what) {
    long rows = table.rowCount();
    long start = System.nanoTime();
    try (BufferAllocator allocator = StorageAllocator.newChild("create index on " + table.name());
        ArrowBuf keys = allocator.buffer(rows * Long.BYTES)) {
      long row = 0;
      for (int batch = 0; batch < table.batches().size(); batch++) {
        ColumnReader reader = table.reader(batch, column);
        for (int i = 0; i < reader.size(); i++, row++) {
          if (reader.isNull(i)) {
            throw new IndexStatementException(NOT_NULL_VIOLATION, what + "row " + row
                + " is NULL, an index needs a key in every row");
          }
          keys.setLong(row * Long.BYTES, reader.getLong(i));
        }
      }
      SortedKeyColumn keyColumn = SortedKeyColumn.ofLongs(rows == 0 ? 0 : keys.memoryAddress(), rows);
      try (SortedKeyIndex index = kind.build(keyColumn, allocator, Runtime.getRuntime().availableProcessors())) {
        LOG.log(System.Logger.Level.INFO, () -> String.format(Locale.ROOT, "built %s index over %d keys in %.1f ms",
            kind, rows, (System.nanoTime() - start) / 1e6));
      } catch (UnsortedKeysException e) {
        boolean duplicate = keyColumn.key(e.row()) == keyColumn.key(e.row() - 1);
        throw new IndexStatementException(duplicate ? UNIQUE_VIOLATION : DATA_EXCEPTION, what + e.getMessage()
            + " (rows counted from 0 in stored order)", e);
      }
    }
  }

  private static void dropIndex(Catalog catalog, String name, boolean ifExists) {
    if (!ifExists && catalog.index(name).isEmpty()) {
      throw new IndexStatementException(UNDEFINED_OBJECT, "cannot drop index " + name + ": it does not exist");
    }
    try {
      catalog.dropIndex(name, ifExists);
    } catch (StorageException e) {
      throw new IndexStatementException(DATA_EXCEPTION, "cannot drop index " + name + ": " + e.getMessage(), e);
    }
  }

  /** The catalog of the named schema, or of the connection's default schema. */
  private static Catalog catalog(CalcitePrepare.Context context, String schemaName) {
    return SpillwaySchemas.catalog(context, schemaName, "indexes");
  }

  private static IndexKind kind(String name) {
    if (name == null) {
      return DEFAULT_KIND;
    }
    String upper = name.toUpperCase(Locale.ROOT);
    for (IndexKind kind : IndexKind.values()) {
      if (kind.name().equals(upper)) {
        return kind;
      }
    }
    IndexKind alias = KIND_ALIASES.get(upper);
    if (alias == null) {
      throw new IndexStatementException(INVALID_PARAMETER, "unknown index kind " + name + "; the kinds: "
          + List.of(IndexKind.values()));
    }
    return alias;
  }

  /** An identifier as the connection folds it: unquoted to lower case, quoted as written. */
  private static String name(String identifier) {
    if (identifier == null) {
      return null;
    }
    return identifier.startsWith("\"") ? identifier.substring(1, identifier.length() - 1)
        : identifier.toLowerCase(Locale.ROOT);
  }

  /** A failed index statement, with the SQLSTATE that JDBC reports. */
  static final class IndexStatementException extends RuntimeException implements SqlStateException {
    private final String sqlState;

    IndexStatementException(String sqlState, String message) {
      this(sqlState, message, null);
    }

    IndexStatementException(String sqlState, String message, Throwable cause) {
      super(message, cause);
      this.sqlState = sqlState;
    }

    @Override public String getSqlState() {
      return sqlState;
    }
  }
}
