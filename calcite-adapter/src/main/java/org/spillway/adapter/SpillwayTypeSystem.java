package org.spillway.adapter;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Calcite's type system with two changes. SUM of a TINYINT, SMALLINT or INTEGER is a BIGINT, as in PostgreSQL:
 * Calcite keeps the argument's type, so a sum of INTEGER column values fails with an overflow once it passes
 * 2^31 (SUM(l_partkey) at TPC-H SF 0.1); a BIGINT sum, as before, fails beyond 2^63. And AVG (also STDDEV and
 * VAR, which share its type) of an exact number is a DOUBLE, as in DuckDB.
 * Calcite types AVG(x) as x's type and reduces it to CAST(SUM(x) AS that type) / COUNT(x): an integer AVG was
 * an integer quotient and a DECIMAL AVG kept the argument's scale (TPC-H Q1's avg_disc 0.04 for 0.0499852958...).
 * Spillway's 64-bit decimals cannot hold 16 significant digits after any integer part (PostgreSQL's NUMERIC
 * can); as a DOUBLE, the reduction is CAST(SUM(x) AS DOUBLE) / COUNT(x) over the exact SUM (BIGINT, DECIMAL or
 * a wide sum): one rounding for sums below 2^53, a relative error of about 1e-16 beyond, and no overflow.
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
    if (!SqlTypeName.EXACT_TYPES.contains(argumentType.getSqlTypeName())) {
      return super.deriveAvgAggType(typeFactory, argumentType);
    }
    return typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.DOUBLE),
        argumentType.isNullable());
  }
}
