package org.spillway.adapter;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Calcite's type system with two changes. SUM of a TINYINT, SMALLINT or INTEGER is a BIGINT, as in PostgreSQL:
 * Calcite keeps the argument's type, so a sum of INTEGER column values fails with an overflow once it passes
 * 2^31 (SUM(l_partkey) at TPC-H SF 0.1); a BIGINT sum, as before, fails beyond 2^63. And AVG of a DECIMAL has the
 * widest precision at the argument's scale.
 * Calcite types AVG(x) as x's type and reduces it to CAST(SUM(x) AS that type) / COUNT(x), so AVG of a
 * DECIMAL(15, 2) fails once the SUM passes 10^13 (TPC-H Q1's avg_price at SF 100); the wider type gives the same
 * values (the quotient keeps the argument's scale) wherever Calcite's gives any.
 */
public final class SpillwayTypeSystem extends RelDataTypeSystemImpl {
  /** The instance a connection names in its {@code typeSystem} property. */
  public static final SpillwayTypeSystem INSTANCE = new SpillwayTypeSystem();

  private SpillwayTypeSystem() {}

  @Override public RelDataType deriveSumType(RelDataTypeFactory typeFactory, RelDataType argumentType) {
    SqlTypeName name = argumentType.getSqlTypeName();
    if (name != SqlTypeName.TINYINT && name != SqlTypeName.SMALLINT && name != SqlTypeName.INTEGER) {
      return super.deriveSumType(typeFactory, argumentType);
    }
    return typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.BIGINT),
        argumentType.isNullable());
  }

  @Override public RelDataType deriveAvgAggType(RelDataTypeFactory typeFactory, RelDataType argumentType) {
    if (argumentType.getSqlTypeName() != SqlTypeName.DECIMAL) {
      return super.deriveAvgAggType(typeFactory, argumentType);
    }
    RelDataType wide = typeFactory.createSqlType(SqlTypeName.DECIMAL, getMaxNumericPrecision(),
        argumentType.getScale());
    return typeFactory.createTypeWithNullability(wide, argumentType.isNullable());
  }
}
