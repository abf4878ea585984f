package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.spillway.adapter.jdbc.SpillwaySqlErrors;
import org.junit.jupiter.params.provider.ValueSource;

class StatementClassifierTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "select count(*) from lineitem",
      "SELECT \"l_orderkey\" FROM lineitem WHERE l_quantity > 10 ORDER BY 1 LIMIT 5",
      "with t as (select 1 as x) select x from t",
      "values (1, 'a')",
      "select 1 union all select 2",
      "explain plan for select * from nation",
      "explain plan for insert into nation values (1, 'x', 1, 'y')",
      "explain analyze select count(*) from nation",
      "EXPLAIN\n  ANALYSE with t as (select 1 as x) select x from t",
  })
  void queriesAreReadOnly(String sql) {
    assertDoesNotThrow(() -> StatementClassifier.requireReadOnly(sql));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "insert into nation values (99, 'ATLANTIS', 1, 'sunk')",
      "update nation set n_name = 'X'",
      "delete from nation",
      "merge into nation n using region r on n.n_regionkey = r.r_regionkey"
          + " when matched then update set n_name = r.r_name",
  })
  void writesAreRefusedWithTheirKind(String sql) {
    final SQLException e =
        assertThrows(SQLException.class, () -> StatementClassifier.requireReadOnly(sql));
    assertEquals(StatementClassifier.READ_ONLY_SQLSTATE, e.getSQLState());
    assertTrue(e.getMessage().contains("read-only"), e.getMessage());
    assertTrue(e.getMessage().contains("--allow-writes"), e.getMessage());
    assertTrue(e.getMessage().contains(sql.substring(0, 6)), "names the statement: " + e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"create table t (x int)", "drop table nation", "CREATE VIEW v AS x",
      "create table t as select * from nation", "DROP TABLE IF EXISTS nation",
      "create index n_key on nation (n_nationkey) using btree", "DROP INDEX IF EXISTS n_key"})
  void unparsableWritesAreRefusedAsWrites(String sql) {
    final SQLException e =
        assertThrows(SQLException.class, () -> StatementClassifier.requireReadOnly(sql));
    assertEquals(StatementClassifier.READ_ONLY_SQLSTATE, e.getSQLState());
    assertTrue(e.getMessage().contains("could not classify"), e.getMessage());
    assertTrue(e.getMessage().contains(sql), e.getMessage());
  }

  /** The table functions that read files read the server's files: refused, however they are spelled. */
  @ParameterizedTest
  @ValueSource(strings = {"select * from table(read_csv('/etc/passwd'))",
      "SELECT COUNT(*) FROM nation, TABLE(\"READ_PARQUET\"('/x.parquet'))",
      "select * from (select * from table(read_arrow /* hidden */ ('/x.arrow')))"})
  void fileReadersAreRefused(String sql) {
    final SQLException e =
        assertThrows(SQLException.class, () -> StatementClassifier.requireReadOnly(sql));
    assertEquals(StatementClassifier.READ_ONLY_SQLSTATE, e.getSQLState());
    assertTrue(e.getMessage().contains("reads files on the server"), e.getMessage());
  }

  /** EXPLAIN ANALYZE runs its statement: a write under it is refused as the write. */
  @Test void explainAnalyzeOfAWriteIsRefused() {
    final SQLException e = assertThrows(SQLException.class,
        () -> StatementClassifier.requireReadOnly("explain analyze delete from nation"));
    assertEquals(StatementClassifier.READ_ONLY_SQLSTATE, e.getSQLState());
    assertTrue(e.getMessage().contains("delete from nation"), e.getMessage());
  }

  /** A typo in a query is refused as the syntax error it is, not as a write (it used to get 25006). */
  @ParameterizedTest
  @ValueSource(strings = {"selec 1", "select l_orderkey form lineitem", "select (1"})
  void unparsableQueriesAreSyntaxErrors(String sql) {
    final SQLException e =
        assertThrows(SQLException.class, () -> StatementClassifier.requireReadOnly(sql));
    assertEquals(SpillwaySqlErrors.SYNTAX_ERROR, e.getSQLState(), e.getMessage());
    assertTrue(e.getMessage().contains(sql), e.getMessage());
  }
}
