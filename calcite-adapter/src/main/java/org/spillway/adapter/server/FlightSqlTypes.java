package org.spillway.adapter.server;

import java.sql.ParameterMetaData;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Arrow type of each JDBC type the embedded driver reports, for result sets, parameters and the
 * table schemas of metadata calls alike; the column's SQL type name, precision and scale travel in the
 * field's Flight SQL metadata, where Flight SQL clients (the JDBC driver's getColumns) read them.
 */
final class FlightSqlTypes {
  /** Arrow's 128-bit decimal holds at most 38 digits; wider declared precisions are clamped to it. */
  static final int MAX_DECIMAL_PRECISION = 38;

  private FlightSqlTypes() {}

  /** One column as the JDBC metadata describes it. */
  record Column(String name, int jdbcType, String typeName, int precision, int scale, boolean nullable) {}

  /** The Arrow type that holds values of {@code column} without loss. */
  static ArrowType arrowType(Column column) {
    switch (column.jdbcType()) {
      case Types.BOOLEAN:
      case Types.BIT:
        return ArrowType.Bool.INSTANCE;
      case Types.TINYINT:
        return new ArrowType.Int(8, true);
      case Types.SMALLINT:
        return new ArrowType.Int(16, true);
      case Types.INTEGER:
        return new ArrowType.Int(32, true);
      case Types.BIGINT:
        return new ArrowType.Int(64, true);
      case Types.REAL:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case Types.FLOAT:
      case Types.DOUBLE:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case Types.DECIMAL:
      case Types.NUMERIC:
        return new ArrowType.Decimal(decimalPrecision(column), Math.max(column.scale(), 0), 128);
      case Types.DATE:
        return new ArrowType.Date(DateUnit.DAY);
      case Types.TIME:
        return new ArrowType.Time(TimeUnit.MILLISECOND, 32);
      case Types.TIMESTAMP:
        return new ArrowType.Timestamp(TimeUnit.MILLISECOND, null);
      case Types.BINARY:
      case Types.VARBINARY:
      case Types.LONGVARBINARY:
        return ArrowType.Binary.INSTANCE;
      default:
        // CHAR, VARCHAR and anything else a client can read as text.
        return ArrowType.Utf8.INSTANCE;
    }
  }

  /** The declared precision, or the widest Arrow allows when the driver reports none or more. */
  static int decimalPrecision(Column column) {
    return column.precision() <= 0 || column.precision() > MAX_DECIMAL_PRECISION
        ? MAX_DECIMAL_PRECISION : column.precision();
  }

  /** The Arrow field of {@code column}, its table named where known (metadata calls). */
  static Field field(Column column, String catalog, String schema, String table) {
    final FlightSqlColumnMetadata.Builder metadata = new FlightSqlColumnMetadata.Builder()
        .typeName(column.typeName())
        .precision(column.precision())
        .scale(column.scale())
        .isAutoIncrement(false)
        .isCaseSensitive(true)
        .isReadOnly(true)
        .isSearchable(true);
    if (catalog != null) {
      metadata.catalogName(catalog);
    }
    if (schema != null) {
      metadata.schemaName(schema);
    }
    if (table != null) {
      metadata.tableName(table);
    }
    final Map<String, String> properties = metadata.build().getMetadataMap();
    return new Field(column.name(), new FieldType(column.nullable(), arrowType(column), null, properties),
        null);
  }

  /** The columns of a result set. */
  static List<Column> columns(ResultSetMetaData metaData) throws SQLException {
    final List<Column> columns = new ArrayList<>();
    final int count = metaData == null ? 0 : metaData.getColumnCount();
    for (int c = 1; c <= count; c++) {
      columns.add(new Column(metaData.getColumnLabel(c), metaData.getColumnType(c),
          metaData.getColumnTypeName(c), metaData.getPrecision(c), metaData.getScale(c),
          metaData.isNullable(c) != ResultSetMetaData.columnNoNulls));
    }
    return columns;
  }

  /** The schema of a result set; no columns (a statement that returns none) give an empty schema. */
  static Schema schema(ResultSetMetaData metaData) throws SQLException {
    final List<Field> fields = new ArrayList<>();
    for (Column column : columns(metaData)) {
      fields.add(field(column, null, null, null));
    }
    return new Schema(fields);
  }

  /** The schema of a prepared statement's parameters, named {@code parameter_1}, ... as JDBC numbers them. */
  static Schema parameterSchema(ParameterMetaData metaData) throws SQLException {
    final List<Field> fields = new ArrayList<>();
    final int count = metaData == null ? 0 : metaData.getParameterCount();
    for (int p = 1; p <= count; p++) {
      fields.add(field(new Column("parameter_" + p, metaData.getParameterType(p),
          metaData.getParameterTypeName(p), metaData.getPrecision(p), metaData.getScale(p), true),
          null, null, null));
    }
    return new Schema(fields);
  }
}
