package org.spillway.tests;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchColumnType;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.StringJoiner;

/**
 * Loads TPC-H data into an in-memory DuckDB database straight from io.trino.tpch's generators, independently
 * of Spillway's own generator and storage, so that DuckDB can serve as the oracle for differential tests.
 */
public final class DuckDbTpchLoader {
  private DuckDbTpchLoader() {
  }

  /**
   * Writes every TPC-H table at scale factor {@code sf} as a '|'-separated file into {@code csvDir} and
   * returns a new in-memory DuckDB connection holding the same tables, with the TPC-H specification's types.
   */
  public static Connection load(double sf, Path csvDir) throws IOException, SQLException {
    Files.createDirectories(csvDir);
    Connection duckDb = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement statement = duckDb.createStatement()) {
      for (TpchTable<?> table : TpchTable.getTables()) {
        Path file = csvDir.resolve(table.getTableName() + ".tbl");
        writeTable(table, sf, file);
        statement.execute("create table " + table.getTableName() + " as select * from read_csv('"
            + file.toAbsolutePath() + "', delim = '|', header = false, quote = '', escape = '',"
            + " auto_detect = false, columns = " + columnTypes(table) + ")");
      }
    } catch (IOException | SQLException | RuntimeException e) {
      duckDb.close();
      throw e;
    }
    return duckDb;
  }

  private static <E extends TpchEntity> void writeTable(TpchTable<E> table, double sf, Path file)
      throws IOException {
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (E row : table.createGenerator(sf, 1, 1)) {
        // dbgen's line format ends every row with the delimiter; DuckDB would read it as an extra column.
        String line = row.toLine();
        out.write(line, 0, line.endsWith("|") ? line.length() - 1 : line.length());
        out.newLine();
      }
    }
  }

  /** DuckDB struct literal mapping each column name to its SQL type, e.g. {'l_orderkey': 'BIGINT', ...}. */
  private static String columnTypes(TpchTable<?> table) {
    StringJoiner columns = new StringJoiner(", ", "{", "}");
    for (TpchColumn<?> column : table.getColumns()) {
      columns.add("'" + column.getColumnName() + "': '" + sqlType(column.getType()) + "'");
    }
    return columns.toString();
  }

  /**
   * The specification's SQL type for a generator column type: identifiers are BIGINT and the generator's
   * DOUBLE columns are the spec's money and quantity columns, which are DECIMAL(15,2).
   */
  static String sqlType(TpchColumnType type) {
    switch (type.getBase()) {
      case INTEGER:
        return "INTEGER";
      case IDENTIFIER:
        return "BIGINT";
      case DATE:
        return "DATE";
      case DOUBLE:
        return "DECIMAL(15,2)";
      case VARCHAR:
        return "VARCHAR";
      default:
        throw new IllegalArgumentException("TPC-H column type " + type.getBase() + " has no SQL mapping");
    }
  }
}
