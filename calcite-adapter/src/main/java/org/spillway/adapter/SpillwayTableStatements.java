package org.spillway.adapter;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.jdbc.CalcitePrepare;
import org.apache.calcite.jdbc.CalcitePrepare.CalciteSignature;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.schema.SchemaPlus;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.StorageException;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

/**
 * {@code CREATE TABLE name AS query} and {@code DROP TABLE [IF EXISTS] name}, which Calcite's parser does not know:
 * {@link SpillwayPrepare} recognizes them by their text and runs them when it prepares them, as it runs
 * {@link SpillwayIndexStatements}, and JDBC reports an update count of 0. CREATE TABLE AS plans and runs its query
 * on this connection and writes the result's batches as a new table through the catalog's writer, which collects
 * statistics and dictionary-encodes text as the generator does; the table appears (to this and every other
 * connection, and to other processes on their next statement) only once it is complete, and a failure leaves none.
 * A read-only server refuses both, as every statement that is not a query.
 */
public final class SpillwayTableStatements {
  private static final String ID = "(\"[^\"]+\"|[A-Za-z_][A-Za-z0-9_$]*)";
  private static final int FLAGS = Pattern.CASE_INSENSITIVE | Pattern.DOTALL;
  private static final Pattern TABLE_STATEMENT = Pattern.compile("\\s*(create|drop)\\s+table\\b.*", FLAGS);
  private static final Pattern CREATE_AS = Pattern.compile("\\s*create\\s+table\\s+(?:" + ID + "\\s*\\.\\s*)?" + ID
      + "\\s+as\\s+(.*?)\\s*;?\\s*", FLAGS);
  private static final Pattern DROP = Pattern.compile("\\s*drop\\s+table\\s+(if\\s+exists\\s+)?(?:" + ID
      + "\\s*\\.\\s*)?" + ID + "\\s*;?\\s*", FLAGS);
  /** Rows per batch of a table CREATE TABLE AS writes. */
  static final int BATCH_ROWS = 1 << 16;

  private SpillwayTableStatements() {}

  /** Whether {@code sql} is a CREATE TABLE or DROP TABLE statement, well-formed or not. */
  public static boolean matches(String sql) {
    return TABLE_STATEMENT.matcher(sql).matches();
  }

  /**
   * Runs the statement (one {@link #matches} accepts); {@code prepareQuery} prepares a query on this connection.
   * Returns the signature of DDL: no rows, count 0.
   */
  static <T> CalciteSignature<T> execute(String sql, CalcitePrepare.Context context,
      Function<String, CalciteSignature<Object[]>> prepareQuery) {
    Matcher create = CREATE_AS.matcher(sql);
    Matcher drop = DROP.matcher(sql);
    if (create.matches()) {
      String name = name(create.group(2));
      createTableAs(SpillwaySchemas.catalog(context, name(create.group(1)), "tables"), name,
          prepareQuery.apply(create.group(3)), context);
    } else if (drop.matches()) {
      dropTable(SpillwaySchemas.catalog(context, name(drop.group(2)), "tables"), name(drop.group(3)),
          drop.group(1) != null);
    } else {
      throw new SpillwayStatementException(SpillwayIndexStatements.SYNTAX_ERROR, "cannot parse the statement; write"
          + " CREATE TABLE name AS query or DROP TABLE [IF EXISTS] name (CREATE TABLE with column definitions is not"
          + " supported: select the columns, cast as needed): " + abbreviate(sql));
    }
    return new CalciteSignature<>(sql, List.of(), Map.of(), null, List.of(), Meta.CursorFactory.OBJECT, null,
        List.of(), -1, null, Meta.StatementType.OTHER_DDL);
  }

  private static void createTableAs(Catalog catalog, String name, CalciteSignature<Object[]> query,
      CalcitePrepare.Context context) {
    String what = "cannot create table " + name + ": ";
    if (catalog.table(name).isPresent()) {
      throw new SpillwayStatementException(SpillwayIndexStatements.DUPLICATE_OBJECT, what + "a table of that name"
          + " exists");
    }
    TableSchema schema = schema(query.rowType, what);
    try (TableWriter writer = catalog.createTable(name, schema);
        Enumerator<Object[]> rows = query.enumerable(dataContext(context, query)).enumerator()) {
      BatchBuilder batch = writer.newBatch(BATCH_ROWS);
      int row = 0;
      while (rows.moveNext()) {
        if (row == BATCH_ROWS) {
          batch.setRowCount(row);
          writer.append(batch);
          batch = writer.newBatch(BATCH_ROWS);
          row = 0;
        }
        Object current = rows.current();
        // a query of one column yields its values, not arrays
        Object[] values = schema.size() == 1 && !(current instanceof Object[]) ? new Object[] {current}
            : (Object[]) current;
        for (int col = 0; col < values.length; col++) {
          set(batch, col, row, schema.column(col).type(), values[col]);
        }
        row++;
      }
      batch.setRowCount(row);
      writer.append(batch);
      writer.commit();
    } catch (StorageException e) {
      throw new SpillwayStatementException(SpillwayIndexStatements.DATA_EXCEPTION, what + e.getMessage(), e);
    }
  }

  /**
   * The connection's data context with the values the prepared query stashed (its plan, its tables), as JDBC's
   * own execution merges them.
   */
  private static DataContext dataContext(CalcitePrepare.Context context, CalciteSignature<?> query) {
    DataContext connection = context.getDataContext();
    return new DataContext() {
      @Override public SchemaPlus getRootSchema() {
        return connection.getRootSchema();
      }

      @Override public JavaTypeFactory getTypeFactory() {
        return connection.getTypeFactory();
      }

      @Override public QueryProvider getQueryProvider() {
        return connection.getQueryProvider();
      }

      @Override public Object get(String name) {
        Object stashed = query.internalParameters.get(name);
        return stashed != null ? stashed : connection.get(name);
      }
    };
  }

  /** The columns of the query's result as Spillway types; a type it cannot hold fails with the column's name. */
  static TableSchema schema(RelDataType rowType, String what) {
    List<ColumnDef> columns = new ArrayList<>();
    for (RelDataTypeField field : rowType.getFieldList()) {
      RelDataType type = field.getType();
      ColumnType column = switch (type.getSqlTypeName()) {
        case TINYINT, SMALLINT, INTEGER -> ColumnType.integer();
        case BIGINT -> ColumnType.bigint();
        case FLOAT, REAL, DOUBLE -> ColumnType.float64();
        case DECIMAL -> {
          // SUM widens its DECIMAL beyond what Spillway holds; the values usually fit, and one that does not
          // fails the statement with its row
          if (type.getScale() > ColumnType.MAX_DECIMAL_PRECISION) {
            throw cannotHold(what, field, "DECIMAL scale above " + ColumnType.MAX_DECIMAL_PRECISION
                + "; cast it to a narrower DECIMAL or DOUBLE");
          }
          yield ColumnType.decimal(Math.min(type.getPrecision(), ColumnType.MAX_DECIMAL_PRECISION), type.getScale());
        }
        case DATE -> ColumnType.date();
        case CHAR -> ColumnType.chars(type.getPrecision());
        case VARCHAR -> type.getPrecision() > 0 && type.getPrecision() < ColumnType.UNBOUNDED_LENGTH
            ? ColumnType.varchar(type.getPrecision()) : ColumnType.varchar(ColumnType.UNBOUNDED_LENGTH);
        case BOOLEAN -> throw cannotHold(what, field, "Spillway has no BOOLEAN type; cast it to INTEGER");
        case NULL -> throw cannotHold(what, field, "a NULL literal has no type; cast it to the column's type");
        default -> throw cannotHold(what, field, "Spillway holds INTEGER, BIGINT, DOUBLE, DECIMAL(p<=18), DATE,"
            + " CHAR and VARCHAR; cast it to one of them");
      };
      columns.add(new ColumnDef(field.getName(), type.isNullable() ? column : column.notNull()));
    }
    try {
      return new TableSchema(columns);
    } catch (StorageException e) {
      throw new SpillwayStatementException(SpillwayIndexStatements.DUPLICATE_OBJECT, what + e.getMessage()
          + "; name the columns with AS", e);
    }
  }

  private static SpillwayStatementException cannotHold(String what, RelDataTypeField field, String why) {
    return new SpillwayStatementException(SpillwayIndexStatements.DATATYPE_MISMATCH, what + "column "
        + field.getName() + " is " + field.getType().getFullTypeString() + ": " + why);
  }

  /** Sets one value of a query's row, as Calcite represents it (DATE as days since 1970-01-01). */
  private static void set(BatchBuilder batch, int col, int row, ColumnType type, Object value) {
    if (value == null) {
      batch.setNull(col, row);
      return;
    }
    switch (type.kind()) {
      case INTEGER -> batch.setInt(col, row, ((Number) value).intValue());
      case BIGINT -> batch.setLong(col, row, ((Number) value).longValue());
      case DOUBLE -> batch.setDouble(col, row, ((Number) value).doubleValue());
      case DECIMAL -> batch.setDecimal(col, row, value instanceof BigDecimal decimal ? decimal
          : new BigDecimal(value.toString()));
      case DATE -> batch.setDate(col, row, value instanceof Number days ? days.intValue()
          : (int) ((java.sql.Date) value).toLocalDate().toEpochDay());
      case CHAR, VARCHAR -> batch.setString(col, row, value.toString());
    }
  }

  private static void dropTable(Catalog catalog, String name, boolean ifExists) {
    if (catalog.table(name).isEmpty() && !catalog.tableNames().contains(name)) {
      if (ifExists) {
        return;
      }
      throw new SpillwayStatementException(SpillwayIndexStatements.UNDEFINED_TABLE, "cannot drop table " + name
          + ": it does not exist");
    }
    try {
      catalog.dropTable(name);
    } catch (StorageException e) {
      throw new SpillwayStatementException(SpillwayIndexStatements.DATA_EXCEPTION, "cannot drop table " + name + ": "
          + e.getMessage(), e);
    }
  }

  /** An identifier as the connection folds it: unquoted to lower case, quoted as written. */
  private static String name(String identifier) {
    if (identifier == null) {
      return null;
    }
    return identifier.startsWith("\"") ? identifier.substring(1, identifier.length() - 1)
        : identifier.toLowerCase(Locale.ROOT);
  }

  private static String abbreviate(String sql) {
    return sql.length() > 120 ? sql.substring(0, 117) + "..." : sql.strip();
  }
}
