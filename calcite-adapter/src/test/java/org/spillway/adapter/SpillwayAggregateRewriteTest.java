package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.StringJoiner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Differential tests, against Calcite's own enumerable code over the same random rows (seed in every
 * message), of what Spillway runs through rewrites: COUNT(DISTINCT) (Calcite's expansion into two
 * aggregates), aggregate FILTER (a CASE below the aggregate), LITERAL_AGG (a project above it), GROUP BY plain
 * text, SUBSTRING and sets of plain text, and LIKE over plain and dictionary-encoded text with random patterns.
 */
class SpillwayAggregateRewriteTest {
  private static final long SEED = System.nanoTime();
  /** Characters of the random strings and patterns: regex metacharacters, a line terminator, LIKE's own. */
  private static final String TEXT_CHARS = "ab.*[$\n%_";
  private static final int ROWS = 600;

  @TempDir static Path dir;
  private static Connection reference;

  @BeforeAll static void createTable() throws SQLException {
    Random random = new Random(SEED);
    TableSchema schema = new TableSchema(List.of(new ColumnDef("id", ColumnType.integer().notNull()),
        new ColumnDef("k", ColumnType.integer().notNull()), new ColumnDef("v", ColumnType.integer()),
        new ColumnDef("w", ColumnType.decimal(10, 2)), new ColumnDef("code", ColumnType.varchar(10)),
        new ColumnDef("note", ColumnType.varchar(20))));
    List<String> codes = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      codes.add(randomText(random, 4));
    }
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < ROWS; r++) {
      boolean nulls = random.nextInt(8) == 0;
      rows.add(new Object[] {r, random.nextInt(4), nulls ? null : random.nextInt(6),
          nulls ? null : BigDecimal.valueOf(random.nextInt(20001) - 10000, 2),
          random.nextInt(10) == 0 ? null : codes.get(random.nextInt(codes.size())),
          random.nextInt(10) == 0 ? null : randomText(random, 12)});
    }
    Catalog catalog = Catalog.create(dir);
    CalciteReference.write(catalog, "t", schema, rows);
    catalog.close();
    reference = CalciteReference.connect(List.of("t"), List.of(schema), List.of(rows));
  }

  @AfterAll static void close() throws SQLException {
    reference.close();
    CatalogRegistry.close(dir);
  }

  @Test void textColumnsAreOneOfEachKind() throws SQLException {
    try (Connection spillway = spillway()) {
      String plan = CalciteReference.rows(spillway, "explain plan for select code, note from t where code like 'a%' "
          + "and note like 'b%'").toString();
      assertTrue(plan.contains("SpillwayFilter"), plan);
    }
    assertEquals(List.of(true, false), CatalogRegistry.open(dir).table("t").map(s -> List.of(
        s.isDictionaryEncoded(4), s.isDictionaryEncoded(5))).orElseThrow(), "code is dictionary-encoded, note not");
  }

  @Test void countDistinctWithNullsAndDuplicates() throws SQLException {
    assertSameInSpillway("select k, count(distinct v) from t group by k order by k", true);
    assertSameInSpillway("select count(distinct v) from t", true);
    assertSameInSpillway("select k, count(distinct v), sum(w), count(*), min(w) from t group by k order by k", true);
    assertSameInSpillway("select count(distinct code) from t where v > 1", true);
    assertSameInSpillway("select k, count(distinct v), count(distinct code), sum(v) from t group by k order by k",
        false);
  }

  @Test void aggregateFilters() throws SQLException {
    assertSameInSpillway("select k, count(*) filter (where w > 0), sum(w) filter (where v is null), "
        + "max(w) filter (where v < 3), count(v) filter (where code like 'a%'), min(v) filter (where w < 0), "
        + "sum(case when v = 2 then 1 else 0 end) from t group by k order by k", true);
    assertSameInSpillway("select count(*) filter (where v = 1), sum(w) filter (where k = 9) from t", true);
  }

  @Test void groupByPlainAndDictionaryText() throws SQLException {
    assertSameInSpillway("select note, count(*), sum(w) from t group by note order by note", true);
    assertSameInSpillway("select code, note, k, count(v), min(w) from t where note like '%a%' group by code, note, k "
        + "order by code, note, k", true);
  }

  @Test void substringsAndSetsOfPlainText() throws SQLException {
    assertSameInSpillway("select id, substring(note, 2, 3), substring(note from 3), substring(note, 0, 2), "
        + "substring(note, -1, 3), substring(note, 5, 0), substring(note, 11, 5) from t order by id", true);
    assertSameInSpillway("select id from t where substring(note, 1, 2) in ('ab', 'a.', '*[', '') order by id", true);
    assertSameInSpillway("select id from t where note between 'a' and 'b' or note > '_' order by id", true);
    assertSameInSpillway("select id from t where note not in ('a', 'b', '.') order by id", true);
    assertSameInSpillway("select substring(note, 1, 1), count(*) from t group by substring(note, 1, 1) "
        + "order by 1", true);
  }

  @Test void subQueriesWithMarkers() throws SQLException {
    assertSameInSpillway("select id from t where v not in (select v from t where k = 1 and w > 50) order by id", false);
    assertSameInSpillway("select id, v in (select v from t where k = 2) from t order by id", false);
  }

  @Test void likeWithRandomPatterns() throws SQLException {
    Random random = new Random(SEED + 1);
    StringJoiner select = new StringJoiner(", ", "select id, ", " from t order by id");
    for (int p = 0; p < 40; p++) {
      String pattern = randomText(random, 5).replace("'", "''");
      select.add("note like '" + pattern + "'").add("code like '" + pattern + "'")
          .add("note not like '" + pattern + "'").add("code not like '" + pattern + "'");
    }
    select.add("note like 'a!%%' escape '!'").add("code like '%!_' escape '!'").add("note like '%'");
    assertSameInSpillway(select.toString(), true);
  }

  /** Runs the query in Spillway and in Calcite; the rows must be equal and, if asked, Spillway ran it all. */
  private static void assertSameInSpillway(String sql, boolean allInSpillway) throws SQLException {
    String where = sql.replace("\n", "\\n") + " (seed " + SEED + ")";
    try (Connection spillway = spillway()) {
      String plan = CalciteReference.rows(spillway, "explain plan for " + sql).toString();
      boolean enumerable = plan.replaceAll("EnumerableSort|ToEnumerable", "").contains("Enumerable")
          || plan.contains("fallback=");
      assertFalse(allInSpillway && enumerable, () -> where + " plan:\n" + plan);
      List<List<Object>> actual = CalciteReference.rows(spillway, sql);
      List<List<Object>> expected = CalciteReference.rows(reference, sql);
      assertNull(CalciteReference.difference(actual, expected), () -> where + ": "
          + CalciteReference.difference(actual, expected) + "\nplan:\n" + plan);
    }
  }

  private static Connection spillway() throws SQLException {
    return DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu");
  }

  private static String randomText(Random random, int maxLength) {
    StringBuilder sb = new StringBuilder();
    for (int i = random.nextInt(maxLength + 1); i > 0; i--) {
      sb.append(TEXT_CHARS.charAt(random.nextInt(TEXT_CHARS.length())));
    }
    return sb.toString();
  }
}
