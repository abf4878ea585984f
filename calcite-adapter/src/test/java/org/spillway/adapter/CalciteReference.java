package org.spillway.adapter;

import org.apache.calcite.DataContext;
import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractTable;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same rows as a Spillway table and served to a plain Calcite connection (no Spillway rules: every operator is
 * Calcite's enumerable code), so that differential tests compare Spillway's values with Calcite's own.
 */
final class CalciteReference {
  private CalciteReference() {}

  /** A plain Calcite connection whose default schema {@code spillway} holds the given tables. */
  static Connection connect(List<String> names, List<TableSchema> schemas, List<List<Object[]>> rows)
      throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("caseSensitive", "false");
    properties.setProperty("unquotedCasing", "UNCHANGED");
    properties.setProperty("typeSystem", SpillwayTypeSystem.class.getName() + "#INSTANCE");  // Spillway's AVG types
    Connection connection = DriverManager.getConnection("jdbc:calcite:", properties);
    SchemaPlus schema = connection.unwrap(CalciteConnection.class).getRootSchema()
        .add("spillway", new org.apache.calcite.schema.impl.AbstractSchema());
    for (int t = 0; t < names.size(); t++) {
      schema.add(names.get(t), new Table(schemas.get(t), rows.get(t)));
    }
    connection.setSchema("spillway");
    return connection;
  }

  /**
   * Writes the tables into a new Spillway catalog at {@code dir} ({@link #write}) and returns the plain Calcite
   * connection over the same rows ({@link #connect}).
   */
  static Connection create(Path dir, List<String> names, List<TableSchema> schemas, List<List<Object[]>> rows)
      throws SQLException {
    try (Catalog catalog = Catalog.create(dir)) {
      for (int t = 0; t < names.size(); t++) {
        write(catalog, names.get(t), schemas.get(t), rows.get(t));
      }
    }
    return connect(names, schemas, rows);
  }

  /** The rows of a query, each value as JDBC's getObject gives it (BigDecimals keep their scale). */
  static List<List<Object>> rows(Connection connection, String sql) throws SQLException {
    List<List<Object>> out = new ArrayList<>();
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          Object v = rs.getObject(i);
          row.add(v instanceof Number n && !(v instanceof BigDecimal) ? (Object) n.longValue() : v);
        }
        out.add(row);
      }
    }
    return out;
  }

  /** EXPLAIN ANALYZE of {@code sql} on {@code spillway}, its lines joined. */
  static String explainAnalyze(Connection spillway, String sql) throws SQLException {
    return String.join("\n", rows(spillway, "explain analyze " + sql).stream()
        .map(row -> String.valueOf(row.get(0))).toList());
  }

  /**
   * Fails unless {@code sql} gives Spillway the reference's rows, and the reference gives some ({@code where} opens
   * each message: the query, the seed, the plan).
   */
  static void assertSameRows(Connection spillway, Connection reference, String sql, String where)
      throws SQLException {
    List<List<Object>> actual = rows(spillway, sql);
    List<List<Object>> expected = rows(reference, sql);
    assertTrue(!expected.isEmpty(), where);
    assertNull(difference(actual, expected), () -> where + "\n"
        + difference(actual, expected));
  }

  /** The first difference of two results (value and scale of every BigDecimal), or null when equal. */
  static String difference(List<List<Object>> actual, List<List<Object>> expected) {
    if (actual.size() != expected.size()) {
      return actual.size() + " rows instead of " + expected.size();
    }
    for (int r = 0; r < actual.size(); r++) {
      for (int c = 0; c < expected.get(r).size(); c++) {
        if (!Objects.equals(actual.get(r).get(c), expected.get(r).get(c))) {
          return "row " + r + " column " + (c + 1) + ": " + actual.get(r).get(c) + " instead of "
              + expected.get(r).get(c) + " (row " + expected.get(r) + ")";
        }
      }
    }
    return null;
  }

  /** Writes the rows (Integer, Long, BigDecimal, String or null values) as a Spillway table of the catalog. */
  static void write(Catalog catalog, String name, TableSchema schema, List<Object[]> rows) {
    try (TableWriter writer = catalog.createTable(name, schema)) {
      BatchBuilder batch = writer.newBatch(rows.size());
      for (int r = 0; r < rows.size(); r++) {
        for (int c = 0; c < schema.columns().size(); c++) {
          Object v = rows.get(r)[c];
          if (v == null) {
            batch.setNull(c, r);
          } else if (v instanceof Integer i) {
            batch.setInt(c, r, i);
          } else if (v instanceof Long l) {
            batch.setLong(c, r, l);
          } else if (v instanceof BigDecimal d) {
            batch.setDecimal(c, r, d);
          } else {
            batch.setString(c, r, (String) v);
          }
        }
      }
      batch.setRowCount(rows.size());
      writer.append(batch);
      writer.commit();
    }
  }

  /** A table of fixed rows with the SQL types Spillway gives the stored schema. */
  private static final class Table extends AbstractTable implements ScannableTable {
    private final TableSchema schema;
    private final List<Object[]> rows;

    Table(TableSchema schema, List<Object[]> rows) {
      this.schema = schema;
      this.rows = rows;
    }

    @Override public RelDataType getRowType(RelDataTypeFactory typeFactory) {
      return SpillwayTypes.rowType(typeFactory, schema);
    }

    @Override public Enumerable<Object[]> scan(DataContext root) {
      return Linq4j.asEnumerable(rows);
    }
  }
}
