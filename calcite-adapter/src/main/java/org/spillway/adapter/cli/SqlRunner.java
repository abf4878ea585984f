package org.spillway.adapter.cli;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** Runs the statements of a script over one connection, printing results and timings. */
final class SqlRunner {
  private final String url;
  private final ResultPrinter printer;
  private final PrintStream log;

  SqlRunner(String url, ResultPrinter printer, PrintStream log) {
    this.url = url;
    this.printer = printer;
    this.log = log;
  }

  /** Runs every statement; stops at the first failure and returns 1, else 0. */
  int run(String script) throws SQLException {
    List<String> statements = SqlScript.split(script);
    if (statements.isEmpty()) {
      throw new IllegalArgumentException("no SQL statement given");
    }
    try (Connection connection = DriverManager.getConnection(url)) {
      for (int i = 0; i < statements.size(); i++) {
        String sql = statements.get(i);
        long start = System.nanoTime();
        try (Statement statement = connection.createStatement()) {
          String summary;
          if (statement.execute(sql)) {
            try (ResultSet rs = statement.getResultSet()) {
              long rows = printer.print(rs);
              summary = rows + (rows == 1 ? " row" : " rows");
            }
          } else {
            summary = statement.getUpdateCount() + " rows affected";
          }
          log.printf("(%s, %.3f s)%n", summary, (System.nanoTime() - start) / 1e9);
        } catch (SQLException e) {
          String where = statements.size() > 1 ? "statement " + (i + 1) + ": " : "";
          log.println("spillway: " + where + Messages.describe(e));
          return 1;
        }
      }
    }
    return 0;
  }
}
