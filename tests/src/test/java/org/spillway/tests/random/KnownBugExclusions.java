package org.spillway.tests.random;

import java.math.BigDecimal;
import java.sql.Connection;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;
import org.spillway.tests.ValueMatcher;
import org.spillway.tests.random.DifferentialRun.Verdict;
import org.spillway.tests.random.RandomQuery.Feature;

/**
 * TEMPORARY: differences caused by bugs of issue #12 that other items fix in parallel. Each entry names its item
 * and recognises the bug by what the query contains and how the engines differ, so that the CI seed stays green
 * while the fix is pending and any other difference still fails. Remove an entry once its fix is merged.
 */
final class KnownBugExclusions {
  /** One known bug: its name (the item of issue #12) and how a difference shows it (given DuckDB to ask). */
  record KnownBug(String name, BiPredicate<Verdict, Connection> shows) {
  }

  static final List<KnownBug> BUGS = List.of(
      // Item 1: rows right, order (and so the rows a LIMIT keeps) wrong: every Spillway row is a row of the
      // unordered query and Spillway returns as many as DuckDB.
      new KnownBug("item 1: ORDER BY dropped", (v, duckDb) -> v.query().features().contains(Feature.ORDER_BY)
          && succeeded(v) && v.spillway().result().rows().size() == v.duckDb().result().rows().size()
          && DifferentialRun.containsAll(DifferentialRun.execute(duckDb, v.query().unordered()), v.spillway())),
      // Item 2: UNION (distinct) with ORDER BY and LIMIT returns too few rows.
      new KnownBug("item 2: UNION + ORDER BY + LIMIT too few rows", (v, duckDb) ->
          v.query().features().containsAll(List.of(Feature.UNION_DISTINCT, Feature.LIMIT)) && succeeded(v)
              && v.spillway().result().rows().size() < v.duckDb().result().rows().size()),
      // Item 3: Calcite-evaluated integer arithmetic wraps around where DuckDB reports the overflow.
      new KnownBug("item 3: integer overflow wraps", (v, duckDb) -> v.query().features().contains(Feature.OVERFLOW)
          && !v.spillway().failed() && v.duckDb().failed() && v.duckDb().error().getMessage().contains("Overflow")),
      // Item 4: SUM of INTEGER overflows INTEGER in Spillway (an error, or a wrapped sum where Calcite sums), where
      // DuckDB sums into HUGEINT.
      new KnownBug("item 4: SUM(int) overflow", (v, duckDb) -> v.query().features().contains(Feature.SUM_OF_INTEGER)
          && !v.duckDb().failed() && (v.spillway().failed() ? v.spillway().error().getMessage().contains("of SUM")
              : differsBeyondInteger(v))));

  private KnownBugExclusions() {
  }

  /** The known bug a differing verdict shows, if any. */
  static Optional<KnownBug> explain(Verdict verdict, Connection duckDb) {
    return BUGS.stream().filter(bug -> bug.shows().test(verdict, duckDb)).findFirst();
  }

  /** Whether a value Spillway got wrong is, in DuckDB's row at the same place, an integer beyond INTEGER. */
  private static boolean differsBeyondInteger(Verdict v) {
    List<List<Object>> actual = v.spillway().result().rows();
    List<List<Object>> expected = v.duckDb().result().rows();
    for (int r = 0; r < Math.min(actual.size(), expected.size()); r++) {
      for (int c = 0; c < expected.get(r).size(); c++) {
        Object e = expected.get(r).get(c);
        if (e instanceof BigDecimal d && !ValueMatcher.matches(actual.get(r).get(c), e) && d.scale() <= 0
            && d.abs().compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean succeeded(Verdict v) {
    return !v.spillway().failed() && !v.duckDb().failed();
  }
}
