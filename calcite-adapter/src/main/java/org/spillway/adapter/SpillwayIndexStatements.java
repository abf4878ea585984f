package org.spillway.adapter;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.jdbc.CalcitePrepare;
import org.apache.calcite.jdbc.CalcitePrepare.CalciteSignature;
import org.spillway.gpu.plan.TableIndex;
import org.spillway.runtime.SqlStateException;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnKind;
import org.spillway.storage.IndexDefinition;
import org.spillway.storage.StorageAllocator;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;

/**
 * {@code CREATE INDEX name ON table (column) [USING kind]} and {@code DROP INDEX [IF EXISTS] name}, which Calcite's
 * parser does not know: {@link SpillwayPrepare} recognizes them by their text and runs them when it prepares them,
 * as Calcite runs DDL, and JDBC reports an update count of 0. CREATE INDEX builds the index over the column's
 * values (which proves they are sorted, unique keys without NULL, as every kind needs), and only then records the
 * definition in the catalog and hands the index to {@link SpillwayIndexes} for the queries; the kind defaults to
 * BINARY_SEARCH. Each failure is one error with its
 * SQLSTATE that names the index, the table and the column, and for bad keys the first offending row.
 */
public final class SpillwayIndexStatements {
  private static final String DEFAULT_KIND = "BINARY_SEARCH";
  /** Other names of the kinds, as the literature spells them. */
  private static final Map<String, String> KIND_ALIASES = Map.of("B_PLUS_TREE", "BTREE", "BPLUSTREE", "BTREE",
      "RADIX_SPLINE", "RADIXSPLINE", "BINARYSEARCH", "BINARY_SEARCH");
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

  private static void createIndex(Catalog catalog, String name, String tableName, String columnName, String kind) {
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
    TableIndex[] built = new TableIndex[1];
    try {
      IndexDefinition created = catalog.createIndex(new IndexDefinition(name, tableName, columnName, kind),
          index -> built[0] = build(table, column, index.name(), kind, what));
      SpillwayIndexes.of(catalog).adopt(created, built[0]);
    } catch (RuntimeException | Error e) {
      if (built[0] != null && catalog.index(name).isEmpty()) {
        built[0].close();  // built, but its definition was not recorded
      }
      if (e instanceof StorageException storage) {
        throw new IndexStatementException(DATA_EXCEPTION, what + storage.getMessage(), storage);
      }
      throw e;
    }
  }

  /**
   * Builds the index over the column's keys in stored order (which proves they suit it), turning keys that do not into
   * the statement's error.
   */
  private static TableIndex build(StoredTable table, int column, String name, String kind, String what) {
    try {
      return TableIndex.build(name, table.batches(), column, kind, StorageAllocator.newChild("index " + name),
          Runtime.getRuntime().availableProcessors());
    } catch (TableIndex.BadKeysException e) {
      throw switch (e.problem()) {
        case NULL -> new IndexStatementException(NOT_NULL_VIOLATION, what + e.getMessage(), e);
        case DUPLICATE -> new IndexStatementException(UNIQUE_VIOLATION, what + e.getMessage()
            + " (rows counted from 0 in stored order)", e);
        case UNSORTED -> new IndexStatementException(DATA_EXCEPTION, what + e.getMessage()
            + " (rows counted from 0 in stored order)", e);
      };
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

  private static String kind(String name) {
    if (name == null) {
      return DEFAULT_KIND;
    }
    String upper = name.toUpperCase(Locale.ROOT);
    String kind = TableIndex.kinds().contains(upper) ? upper : KIND_ALIASES.get(upper);
    if (kind == null) {
      throw new IndexStatementException(INVALID_PARAMETER, "unknown index kind " + name + "; the kinds: "
          + TableIndex.kinds());
    }
    return kind;
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
