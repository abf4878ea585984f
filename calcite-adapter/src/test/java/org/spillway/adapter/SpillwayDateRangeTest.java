package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.adapter.jdbc.SpillwaySqlErrors;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Date arithmetic stays within 0001-01-01..9999-12-31 wherever it is evaluated (issue #12:
 * {@code DATE '9999-12-31' + INTERVAL '1' DAY} gave 0000-01-01): a result outside is SQLSTATE 22008.
 */
class SpillwayDateRangeTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  private static String url() {
    return SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
  }

  @Test void checkKeepsTheRangeAndRefusesWhatLiesOutside() {
    int first = (int) LocalDate.of(1, 1, 1).toEpochDay();
    int last = (int) LocalDate.of(9999, 12, 31).toEpochDay();
    assertEquals(first, SpillwayDateRange.check(first));
    assertEquals(last, SpillwayDateRange.check(last));
    for (int outside : new int[] {first - 1, last + 1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      DateTimeException e = assertThrows(DateTimeException.class, () -> SpillwayDateRange.check(outside));
      assertTrue(e.getMessage().contains("date out of range"), e.getMessage());
    }
    assertEquals("date out of range: +10000-01-01 is after 9999-12-31",
        assertThrows(DateTimeException.class, () -> SpillwayDateRange.check(last + 1)).getMessage());
    assertEquals("date out of range: 0000-12-31 is before 0001-01-01",
        assertThrows(DateTimeException.class, () -> SpillwayDateRange.check(first - 1)).getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT DATE '9999-12-31' + INTERVAL '1' DAY",  // the repro: a constant, folded at plan time
      "SELECT DATE '0001-01-01' - INTERVAL '1' DAY",
      "SELECT DATE '9999-12-01' + INTERVAL '1' MONTH",
      "SELECT DATE '9000-06-15' + INTERVAL '1000' YEAR(4)",
      "SELECT TIMESTAMPADD(DAY, 1, DATE '9999-12-31')",
      "SELECT d + INTERVAL '1' DAY FROM (VALUES DATE '9999-12-31') AS t(d)",
      // a constant only the filter makes (Calcite's predicate-driven folding)
      "SELECT d + INTERVAL '1' DAY FROM (VALUES DATE '2000-01-01', DATE '9999-12-31') AS t(d) "
          + "WHERE d = DATE '9999-12-31'",
      // over a table's column, in Calcite's generated code (o_orderdate: 1992..1998)
      "SELECT o_orderdate + INTERVAL '9000' YEAR(4) FROM orders",
      "SELECT o_orderkey FROM orders WHERE o_orderdate - INTERVAL '2000' YEAR(4) < DATE '0001-01-02'",
      "SELECT MAX(o_orderdate + INTERVAL '3000' DAY(4) * 1000) FROM orders",
  })
  void dateOutsideTheRangeIsDatetimeFieldOverflow(String sql) {
    for (int run = 0; run < 2; run++) {  // the second run reuses the cached plan
      SQLException e = assertThrows(SQLException.class, () -> SpillwayAssert.rows(url(), sql), sql);
      assertEquals(SpillwaySqlErrors.DATETIME_FIELD_OVERFLOW, e.getSQLState(), () -> sql + ": " + e);
      assertTrue(e.getMessage().toLowerCase(Locale.ROOT).contains("date out of range"), () -> sql + ": " + e);
    }
  }

  @Test void datesJustInsideTheRangeAreComputed() throws SQLException {
    assertEquals(List.of("9999-12-31 | 0001-01-01 | 9999-12-31"), SpillwayAssert.rows(url(),
        "SELECT DATE '9999-12-30' + INTERVAL '1' DAY, DATE '0001-01-02' - INTERVAL '1' DAY, "
            + "TIMESTAMPADD(MONTH, 1, DATE '9999-11-30') + INTERVAL '1' DAY"));
    String latest = SpillwayAssert.rows(url(), "SELECT MAX(o_orderdate) FROM orders").get(0);
    String shifted = LocalDate.parse(latest).plusYears(8000).toString();
    assertEquals(List.of(shifted),
        SpillwayAssert.rows(url(), "SELECT MAX(o_orderdate + INTERVAL '8000' YEAR(4)) FROM orders"));
    // date - date: the whole range apart, and not a date itself
    assertEquals(List.of("3652058"), SpillwayAssert.rows(url(),
        "SELECT TIMESTAMPDIFF(DAY, DATE '0001-01-01', d) FROM (VALUES DATE '9999-12-31') AS t(d)"));
  }

  @Test void dateArithmeticRunsInCalciteWithTheReason() throws SQLException {
    SpillwayAssert.that(dir)
        .query("SELECT o_orderdate + INTERVAL '1' DAY FROM orders")
        .explainContains("CHECKED_DATE(+($")
        .explainContains("fallback=[Project: date arithmetic (range-checked in Calcite's code) in CHECKED_DATE(");
  }
}
