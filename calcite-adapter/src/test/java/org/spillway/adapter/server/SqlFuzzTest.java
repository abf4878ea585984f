package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.spillway.adapter.jdbc.SpillwaySqlErrors;
import org.spillway.adapter.jdbc.SpillwayStatementGuard;

/**
 * Seeded fuzzing of the error paths: garbage, random token soup, deep nesting, huge statements and bad casts.
 * Every failure must be an SQLException whose SQLSTATE names its class (never null, 00000 or HY000), and the
 * connection (and JVM) must keep serving. Set {@code -Dspillway.fuzz.seed=N} to replay or vary a run.
 */
class SqlFuzzTest {
  private static final long SEED = Long.getLong("spillway.fuzz.seed", 20261125L);

  private static final String[] TOKENS = {
      "select", "from", "where", "group", "by", "order", "having", "join", "on", "as", "and", "or", "not", "null",
      "case", "when", "then", "else", "end", "cast", "integer", "date", "varchar", "decimal(5,2)", "count(*)",
      "sum(", "(", ")", ")", ",", "+", "-", "*", "/", "=", "<", ">=", "'abc'", "'2020-13-45'", "1", "0", "1.5",
      "2147483647", "lineitem", "orders", "nation", "l_orderkey", "l_quantity", "n_name", "o_orderdate", "*",
      "limit", "union", "in", "between", "like", "exists", "\"", "'", ";", "?", "interval", "distinct"};

  private static final String[] CAST_TYPES = {"integer", "bigint", "date", "timestamp", "decimal(5,2)", "double"};

  @RegisterExtension
  static final TpchServerExtension SERVER = new TpchServerExtension();

  @Test
  void embeddedFailuresAreClassifiedSqlExceptions() throws SQLException {
    final Random random = new Random(SEED);
    try (Connection connection = TpchTestData.embedded()) {
      for (int i = 0; i < 40; i++) {
        expectClass(connection, garbage(random), Set.of("42"));
      }
      for (int i = 0; i < 80; i++) {
        expectClass(connection, tokenSoup(random), null);
      }
      for (int i = 0; i < 6; i++) {
        expectClass(connection, deepNesting(random), Set.of("54"));
      }
      expectClass(connection, huge(random), Set.of("54"));
      for (int i = 0; i < 12; i++) {
        expectClass(connection, badCast(random), Set.of("22"));
      }
      assertStillServing(connection);
    }
  }

  @Test
  void remoteFailuresAreClassifiedSqlExceptions() throws SQLException {
    final Random random = new Random(SEED + 1);
    try (Connection remote = DriverManager.getConnection(SERVER.jdbcUrl())) {
      for (int i = 0; i < 10; i++) {
        expectClass(remote, tokenSoup(random), null);
      }
      expectClass(remote, garbage(random), Set.of("42"));
      expectClass(remote, deepNesting(random), Set.of("54"));
      expectClass(remote, huge(random), Set.of("54"));
      expectClass(remote, badCast(random), Set.of("22"));
      assertStillServing(remote);
    }
  }

  /**
   * Runs {@code sql}; a failure must be an SQLException with a specific SQLSTATE, of one of {@code classes}
   * (two-character prefixes) when given. A statement that happens to be valid may succeed.
   */
  private static void expectClass(Connection connection, String sql, Set<String> classes) {
    try {
      SqlStateTest.drain(connection, sql);
    } catch (SQLException e) {
      final String state = e.getSQLState();
      assertTrue(SpillwaySqlErrors.isSpecific(state), () -> "unspecific SQLSTATE " + state + " for "
          + abbreviate(sql) + " (seed " + SEED + "): " + e);
      if (classes != null) {
        assertTrue(classes.contains(state.substring(0, 2)), () -> "SQLSTATE " + state + " not of class " + classes
            + " for " + abbreviate(sql) + " (seed " + SEED + "): " + e);
      } else {
        assertTrue(!state.equals(SpillwaySqlErrors.INTERNAL_ERROR), () -> "internal error for "
            + abbreviate(sql) + " (seed " + SEED + "): " + e);
      }
    } catch (RuntimeException | Error e) {
      fail("not an SQLException for " + abbreviate(sql) + " (seed " + SEED + "): " + e, e);
    }
  }

  /** Random printable characters after a word no statement starts with. */
  private static String garbage(Random random) {
    final StringBuilder sql = new StringBuilder("xyzzy ");
    final int length = 1 + random.nextInt(80);
    for (int i = 0; i < length; i++) {
      sql.append((char) (32 + random.nextInt(95)));
    }
    return sql.toString();
  }

  private static String tokenSoup(Random random) {
    final List<String> tokens = new ArrayList<>(List.of("select"));
    final int length = 1 + random.nextInt(25);
    for (int i = 0; i < length; i++) {
      tokens.add(TOKENS[random.nextInt(TOKENS.length)]);
    }
    return String.join(" ", tokens);
  }

  /** Parentheses or chained additions deep enough to overflow the parser's or planner's stack. */
  private static String deepNesting(Random random) {
    final int depth = 3_000 + random.nextInt(5_000);
    if (random.nextBoolean()) {
      return "select " + "(".repeat(depth) + "1" + ")".repeat(depth);
    }
    return SqlStateTest.chain(depth);
  }

  private static String huge(Random random) {
    final StringBuilder sql = new StringBuilder("select 1 from nation where n_name in ('a'");
    while (sql.length() <= SpillwayStatementGuard.MAX_STATEMENT_LENGTH) {
      sql.append(",'").append(Integer.toString(random.nextInt(1_000_000), 36)).append('\'');
    }
    return sql.append(')').toString();
  }

  /** A cast of a string that is not a value of the target type (letters only, so never a valid number or date). */
  private static String badCast(Random random) {
    final StringBuilder value = new StringBuilder();
    final int length = 1 + random.nextInt(12);
    for (int i = 0; i < length; i++) {
      value.append((char) ('g' + random.nextInt(20)));
    }
    return "select cast('" + value + "' as " + CAST_TYPES[random.nextInt(CAST_TYPES.length)] + ")";
  }

  private static void assertStillServing(Connection connection) throws SQLException {
    try (var statement = connection.createStatement();
        var resultSet = statement.executeQuery("select count(*) from nation")) {
      assertTrue(resultSet.next());
      assertEquals(25, resultSet.getLong(1));
    }
  }

  private static String abbreviate(String sql) {
    return sql.length() <= 200 ? sql : sql.substring(0, 197) + "...";
  }
}
