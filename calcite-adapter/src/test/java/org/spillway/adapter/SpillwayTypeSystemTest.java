package org.spillway.adapter;

import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * SUM of a TINYINT, SMALLINT or INTEGER is a BIGINT (issue #12: SUM(l_partkey) overflowed at SF 0.1); AVG of an
 * exact number is a DOUBLE from the exact sum (issue #12: TPC-H Q1's avg_disc was truncated to 0.04).
 */
class SpillwayTypeSystemTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  @Test void sumOfSmallIntegersIsBigint() {
    RelDataTypeFactory types = new JavaTypeFactoryImpl(SpillwayTypeSystem.INSTANCE);
    for (SqlTypeName name : new SqlTypeName[] {SqlTypeName.TINYINT, SqlTypeName.SMALLINT, SqlTypeName.INTEGER}) {
      for (boolean nullable : new boolean[] {false, true}) {
        RelDataType argument = types.createTypeWithNullability(types.createSqlType(name), nullable);
        RelDataType sum = SpillwayTypeSystem.INSTANCE.deriveSumType(types, argument);
        assertEquals(SqlTypeName.BIGINT, sum.getSqlTypeName(), name.toString());
        assertEquals(nullable, sum.isNullable(), name + " nullability");
      }
    }
    RelDataType decimal = types.createSqlType(SqlTypeName.DECIMAL, 15, 2);
    assertEquals(types.getTypeSystem().deriveSumType(types, decimal),
        SpillwayTypeSystem.INSTANCE.deriveSumType(types, decimal));
  }

  /** A sum past 2^31 of an INTEGER expression, in Spillway's aggregate, against the sum of the rows here. */
  @Test void integerSumPastTwoToTheThirtyOneIsExact() throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    long expected = 0;
    for (String v : SpillwayAssert.rows(url, "SELECT l_partkey * 100000 FROM lineitem")) {
      expected += Long.parseLong(v);
    }
    assertEquals(true, expected > Integer.MAX_VALUE, "the data should sum past 2^31");
    try (Connection c = DriverManager.getConnection(url);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT SUM(l_partkey * 100000), SUM(l_linenumber) FROM lineitem")) {
      assertEquals(Types.BIGINT, rs.getMetaData().getColumnType(1));
      assertEquals(Types.BIGINT, rs.getMetaData().getColumnType(2));
      rs.next();
      assertEquals(expected, rs.getLong(1));
    }
    SpillwayAssert.that(dir).query("SELECT SUM(l_partkey * 100000) FROM lineitem")
        .planShape("SpillwayToEnumerableConverter\n"
            + "  SpillwayAggregate\n"
            + "    SpillwayProject\n"
            + "      SpillwayTableScan\n");
  }

  @Test void averageOfExactNumbersIsDouble() {
    RelDataTypeFactory types = new JavaTypeFactoryImpl(SpillwayTypeSystem.INSTANCE);
    for (SqlTypeName name : SqlTypeName.EXACT_TYPES) {
      for (boolean nullable : new boolean[] {false, true}) {
        RelDataType argument = types.createTypeWithNullability(name == SqlTypeName.DECIMAL
            ? types.createSqlType(name, 15, 2) : types.createSqlType(name), nullable);
        RelDataType avg = SpillwayTypeSystem.INSTANCE.deriveAvgAggType(types, argument);
        assertEquals(SqlTypeName.DOUBLE, avg.getSqlTypeName(), name.toString());
        assertEquals(nullable, avg.isNullable(), name + " nullability");
      }
    }
    RelDataType real = types.createSqlType(SqlTypeName.REAL);
    assertEquals(real, SpillwayTypeSystem.INSTANCE.deriveAvgAggType(types, real));
  }

  /**
   * AVG of DECIMAL and INTEGER columns in Spillway's aggregate, against the exact sum over the count computed here:
   * one rounding, so equal to the last bit (a truncated AVG, 0.04 for l_discount, is far off).
   */
  @Test void averageIsTheExactSumOverTheCount() throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    String[] columns = {"l_discount", "l_extendedprice", "l_linenumber"};
    BigDecimal[] sums = {BigDecimal.ZERO, BigDecimal.ZERO, BigDecimal.ZERO};
    long count = 0;
    for (String row : SpillwayAssert.rows(url, "SELECT " + String.join(", ", columns) + " FROM lineitem")) {
      String[] values = row.split(" \\| ");
      for (int i = 0; i < sums.length; i++) {
        sums[i] = sums[i].add(new BigDecimal(values[i]));
      }
      count++;
    }
    String sql = "SELECT AVG(l_discount), AVG(l_extendedprice), AVG(l_linenumber) FROM lineitem";
    try (Connection c = DriverManager.getConnection(url);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      for (int i = 0; i < sums.length; i++) {
        assertEquals(Types.DOUBLE, rs.getMetaData().getColumnType(i + 1), columns[i]);
        assertEquals(sums[i].doubleValue() / count, rs.getDouble(i + 1), columns[i]);
      }
    }
    SpillwayAssert.that(dir).query(sql)
        .planShape("SpillwayToEnumerableConverter\n"
            + "  SpillwayProject\n"
            + "    SpillwayAggregate\n"
            + "      SpillwayTableScan\n")
        .explainContains("EXPR$0=[/(CAST(CASE(=($1, 0), null:DECIMAL(19, 2), $0)):DOUBLE, $1)]");
  }
}
