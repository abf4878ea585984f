package org.spillway.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.trino.tpch.TpchTable;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Differential test of the stored data itself: every row and column of each TPC-H table, read through
 * {@code jdbc:spillway:}, must equal DuckDB's copy loaded from the reference generator.
 */
@ExtendWith(TpchDataExtension.class)
class TpchTableContentTest {
  private static TpchDataSet data;

  @BeforeAll
  static void connect(TpchDataSet dataSet) {
    data = dataSet;
  }

  static Stream<String> tableNames() {
    return TpchTable.getTables().stream().map(TpchTable::getTableName);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tableNames")
  void everyRowMatchesReferenceGenerator(String table) throws SQLException {
    TpchTable<?> reference = TpchTable.getTable(table);
    List<String> columns = reference.getColumns().stream().map(c -> c.getColumnName()).toList();
    // Ordering by every column makes the order total, so rows compare one to one in linear time.
    String sql = "select * from " + table + " order by "
        + IntStream.rangeClosed(1, columns.size()).mapToObj(Integer::toString).collect(Collectors.joining(", "));
    QueryResult expected = read(data.duckDb(), sql);
    QueryResult actual = read(data.spillway(), sql);
    assertEquals(columns, actual.labels(), table + ": column names and order");
    new ResultComparator(table, columns, OptionalLong.empty())
        .compare(actual, expected)
        .ifPresent(difference -> fail(difference));
  }

  private static QueryResult read(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(sql)) {
      return QueryResult.read(resultSet);
    }
  }
}
