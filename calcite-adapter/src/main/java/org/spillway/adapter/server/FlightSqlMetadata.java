package org.spillway.adapter.server;

import java.nio.charset.StandardCharsets;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The catalog metadata a Flight SQL client browses (catalogs, schemas, tables with their Arrow schemas, table
 * types, SQL types), read from the embedded driver's {@link DatabaseMetaData}, so that it says exactly what embedded JDBC
 * and the Avatica server say.
 */
final class FlightSqlMetadata {
  private FlightSqlMetadata() {}

  /** The catalogs with a name; Calcite's tables live in none, so this is usually empty. */
  static List<Object[]> catalogs(DatabaseMetaData metaData) throws SQLException {
    final List<Object[]> rows = new ArrayList<>();
    try (ResultSet catalogs = metaData.getCatalogs()) {
      while (catalogs.next()) {
        final String name = catalogs.getString("TABLE_CAT");
        if (name != null) {
          rows.add(new Object[] {name});
        }
      }
    }
    return rows;
  }

  static List<Object[]> schemas(DatabaseMetaData metaData, CommandGetDbSchemas command) throws SQLException {
    final List<Object[]> rows = new ArrayList<>();
    try (ResultSet schemas = metaData.getSchemas(command.hasCatalog() ? command.getCatalog() : null,
        command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null)) {
      while (schemas.next()) {
        rows.add(new Object[] {schemas.getString("TABLE_CATALOG"), schemas.getString("TABLE_SCHEM")});
      }
    }
    return rows;
  }

  static List<Object[]> tables(DatabaseMetaData metaData, CommandGetTables command) throws SQLException {
    final String catalog = command.hasCatalog() ? command.getCatalog() : null;
    final String[] types = command.getTableTypesCount() == 0 ? null
        : command.getTableTypesList().toArray(new String[0]);
    final List<Object[]> rows = new ArrayList<>();
    try (ResultSet tables = metaData.getTables(catalog,
        command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null,
        command.hasTableNameFilterPattern() ? command.getTableNameFilterPattern() : null, types)) {
      while (tables.next()) {
        final String tableCatalog = tables.getString("TABLE_CAT");
        final String schema = tables.getString("TABLE_SCHEM");
        final String table = tables.getString("TABLE_NAME");
        final String type = tables.getString("TABLE_TYPE");
        rows.add(command.getIncludeSchema()
            ? new Object[] {tableCatalog, schema, table, type,
                tableSchema(metaData, tableCatalog, schema, table).serializeAsMessage()}
            : new Object[] {tableCatalog, schema, table, type});
      }
    }
    return rows;
  }

  static List<Object[]> tableTypes(DatabaseMetaData metaData) throws SQLException {
    final List<Object[]> rows = new ArrayList<>();
    try (ResultSet types = metaData.getTableTypes()) {
      while (types.next()) {
        rows.add(new Object[] {types.getString("TABLE_TYPE")});
      }
    }
    return rows;
  }

  /**
   * The SQL types the embedded driver knows, as {@code DatabaseMetaData.getTypeInfo} lists them, in the columns of
   * Flight SQL's type info (its list of create parameters left empty); {@code dataType} keeps one JDBC type.
   */
  static List<Object[]> typeInfo(DatabaseMetaData metaData, Integer dataType) throws SQLException {
    final List<Object[]> rows = new ArrayList<>();
    try (ResultSet types = metaData.getTypeInfo()) {
      while (types.next()) {
        final int type = types.getInt("DATA_TYPE");
        if (dataType != null && dataType != type) {
          continue;
        }
        rows.add(new Object[] {types.getString("TYPE_NAME"), type, intOrNull(types, "PRECISION"),
            types.getString("LITERAL_PREFIX"), types.getString("LITERAL_SUFFIX"), null,
            types.getInt("NULLABLE"), types.getBoolean("CASE_SENSITIVE"), types.getInt("SEARCHABLE"),
            types.getBoolean("UNSIGNED_ATTRIBUTE"), types.getBoolean("FIXED_PREC_SCALE"),
            types.getBoolean("AUTO_INCREMENT"), types.getString("LOCAL_TYPE_NAME"),
            intOrNull(types, "MINIMUM_SCALE"), intOrNull(types, "MAXIMUM_SCALE"), type, null,
            intOrNull(types, "NUM_PREC_RADIX"), null});
      }
    }
    return rows;
  }

  private static Integer intOrNull(ResultSet resultSet, String column) throws SQLException {
    final int value = resultSet.getInt(column);
    return resultSet.wasNull() ? null : value;
  }

  /** The Arrow schema of one table, its columns typed as a query over it would return them. */
  static Schema tableSchema(DatabaseMetaData metaData, String catalog, String schema, String table)
      throws SQLException {
    final List<Field> fields = new ArrayList<>();
    try (ResultSet columns = metaData.getColumns(catalog, escape(metaData, schema), escape(metaData, table),
        "%")) {
      while (columns.next()) {
        final int type = columns.getInt("DATA_TYPE");
        final FlightSqlTypes.Column column = new FlightSqlTypes.Column(columns.getString("COLUMN_NAME"),
            type, columns.getString("TYPE_NAME"), columns.getInt("COLUMN_SIZE"),
            type == Types.DECIMAL || type == Types.NUMERIC ? columns.getInt("DECIMAL_DIGITS") : 0,
            columns.getInt("NULLABLE") != DatabaseMetaData.columnNoNulls);
        fields.add(FlightSqlTypes.field(column, catalog, schema, table));
      }
    }
    return new Schema(fields);
  }

  /** A name as a metadata pattern that matches only itself ('_' and '%' escaped). */
  private static String escape(DatabaseMetaData metaData, String name) throws SQLException {
    if (name == null) {
      return null;
    }
    final String escape = metaData.getSearchStringEscape();
    return name.replace(escape, escape + escape).replace("_", escape + "_").replace("%", escape + "%");
  }

  /**
   * Sends {@code rows} as one record batch of {@code schema}, whose columns are text, binary, 32-bit integers or
   * booleans (every metadata schema this endpoint fills); a row may be shorter than the schema when its last
   * columns are optional.
   */
  static void send(Schema schema, List<Object[]> rows, BufferAllocator allocator, ServerStreamListener listener) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      final List<FieldVector> vectors = root.getFieldVectors();
      for (int row = 0; row < rows.size(); row++) {
        final Object[] values = rows.get(row);
        for (int c = 0; c < vectors.size() && c < values.length; c++) {
          set(vectors.get(c), row, values[c]);
        }
      }
      root.setRowCount(rows.size());
      listener.start(root);
      listener.putNext();
      listener.completed();
    }
  }

  private static void set(FieldVector vector, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
    } else if (vector instanceof VarCharVector text) {
      text.setSafe(row, value.toString().getBytes(StandardCharsets.UTF_8));
    } else if (vector instanceof VarBinaryVector binary) {
      binary.setSafe(row, (byte[]) value);
    } else if (vector instanceof IntVector ints) {
      ints.setSafe(row, (Integer) value);
    } else if (vector instanceof BitVector bits) {
      bits.setSafe(row, (Boolean) value ? 1 : 0);
    } else {
      throw new IllegalArgumentException("metadata column " + vector.getName() + " has a type this endpoint does"
          + " not fill: " + vector.getField().getType());
    }
  }

  /** The schema of {@link #tables}' rows. */
  static Schema tablesSchema(CommandGetTables command) {
    return command.getIncludeSchema() ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
  }
}
