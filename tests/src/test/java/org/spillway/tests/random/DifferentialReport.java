package org.spillway.tests.random;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.spillway.tests.random.DifferentialRun.Verdict;
import org.spillway.tests.random.RandomQuery.Feature;

/**
 * Tallies the verdicts of a random run: agreements, queries both engines rejected, and the differences, which
 * fail the test with each query's seed and SQL.
 */
final class DifferentialReport {
  /** At most this many failures are spelled out; the count says how many there were. */
  private static final int FAILURES_SHOWN = 20;

  private final long seed;
  private int agreed;
  private int bothFailed;
  private int empty;
  private long spillwayNanos;
  private long duckDbNanos;
  private final List<String> failures = new ArrayList<>();

  DifferentialReport(long seed) {
    this.seed = seed;
  }

  void add(Verdict verdict) {
    RandomQuery query = verdict.query();
    spillwayNanos += verdict.spillway().nanos();
    duckDbNanos += verdict.duckDb().nanos();
    if (verdict.bothFailed() && !query.features().contains(Feature.OVERFLOW)) {
      // Only overflow may make both engines fail; anything else is a generator bug hiding coverage.
      failures.add(query + "\n  both engines failed: Spillway: " + verdict.spillway().error().getMessage()
          + "\n  DuckDB: " + verdict.duckDb().error().getMessage());
      return;
    }
    if (verdict.difference().isEmpty()) {
      if (verdict.bothFailed()) {
        bothFailed++;
      } else {
        agreed++;
        empty += verdict.duckDb().result().rows().isEmpty() ? 1 : 0;
      }
      return;
    }
    failures.add(query + "\n  " + verdict.difference().get());
  }

  String summary() {
    return "random queries from seed " + seed + ": " + agreed + " agreed (" + empty + " of them empty), " + bothFailed
        + " failed on both engines (overflow), " + failures.size() + " differences; "
        + spillwayNanos / 1_000_000 + " ms in Spillway, " + duckDbNanos / 1_000_000 + " ms in DuckDB";
  }

  /** Queries that agreed with an empty result (filters that select nothing, empty inputs of operators). */
  int emptyResults() {
    return empty;
  }

  Optional<String> failures() {
    if (failures.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(summary()
        + " (rerun one with -Dspillway.tests.randomSeed=SEED -Dspillway.tests.randomQueries=1)\n"
        + String.join("\n", failures.subList(0, Math.min(FAILURES_SHOWN, failures.size()))));
  }
}
