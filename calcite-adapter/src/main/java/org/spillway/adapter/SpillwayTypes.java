package org.spillway.adapter;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;

/** Maps Spillway storage types to Calcite SQL types. */
public final class SpillwayTypes {
  private SpillwayTypes() {}

  /** The Calcite row type of a stored table. */
  public static RelDataType rowType(RelDataTypeFactory typeFactory, TableSchema schema) {
    RelDataTypeFactory.Builder builder = typeFactory.builder();
    for (ColumnDef column : schema.columns()) {
      builder.add(column.name(), sqlType(typeFactory, column.type()));
    }
    return builder.build();
  }

  /** The Calcite type of one column; CHAR(n) is exposed as VARCHAR(n) so values carry no blank padding. */
  public static RelDataType sqlType(RelDataTypeFactory typeFactory, ColumnType type) {
    RelDataType sqlType = switch (type.kind()) {
      case INTEGER -> typeFactory.createSqlType(SqlTypeName.INTEGER);
      case BIGINT -> typeFactory.createSqlType(SqlTypeName.BIGINT);
      case DOUBLE -> typeFactory.createSqlType(SqlTypeName.DOUBLE);
      case DECIMAL -> typeFactory.createSqlType(SqlTypeName.DECIMAL, type.precision(), type.scale());
      case DATE -> typeFactory.createSqlType(SqlTypeName.DATE);
      case CHAR, VARCHAR -> type.precision() > 0
          ? typeFactory.createSqlType(SqlTypeName.VARCHAR, type.precision())
          : typeFactory.createSqlType(SqlTypeName.VARCHAR);
    };
    return typeFactory.createTypeWithNullability(sqlType, type.nullable());
  }
}
