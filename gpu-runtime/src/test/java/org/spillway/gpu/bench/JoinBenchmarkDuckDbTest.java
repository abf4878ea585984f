package org.spillway.gpu.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * DuckDB's SQL generator against JoinBenchmarkData's Java one (no GPU: the Java side fills plain off-heap memory):
 * every row of R and S equal (position-weighted sums over whole tables, plus sampled rows), and DuckDB's join
 * reproduces the answer the Java generator computed.
 */
class JoinBenchmarkDuckDbTest {
  private static final ColumnType I64 = ColumnType.INT64;
  private static final ColumnType I32 = ColumnType.INT32;
  private static JoinBenchmarkDuckDb duck;

  @BeforeAll
  static void open() throws Exception {
    String reason = JoinBenchmarkDuckDb.unavailableReason();
    Assumptions.assumeTrue(reason == null, reason);
    duck = JoinBenchmarkDuckDb.open(2);
  }

  @AfterAll
  static void close() throws Exception {
    if (duck != null) {
      duck.close();
    }
  }

  static Stream<JoinBenchmarkData.Spec> specs() {
    long twoSegments = (1 << JoinBenchmarkData.SEGMENT_BITS) + 4099;  // a second segment of the random streams
    return Stream.of(
        new JoinBenchmarkData.Spec("dense 8/8", 1 << 14, twoSegments, I64, false, 0, 1, 17),
        new JoinBenchmarkData.Spec("sparse 8/8, half match", 1 << 13, 50_000, I64, true, 0, 0.5, 3),
        new JoinBenchmarkData.Spec("dense 4/4, 0.3", 1 << 15, 40_000, I32, false, 0, 0.3, 930),
        new JoinBenchmarkData.Spec("sparse 4/4", 1 << 12, 30_000, I32, true, 0, 1, 5),
        new JoinBenchmarkData.Spec("Zipf 1 on S", 1 << 12, twoSegments, I64, false, 1.0, 0.9, 11),
        new JoinBenchmarkData.Spec("Zipf 1.75 on S, 4/4", 1 << 10, 20_000, I32, false, 1.75, 1, 12),
        new JoinBenchmarkData.Spec("Zipf 0.5 both sides", 1 << 13, 1 << 13, I64, false, 0.5, true, 1, 44),
        new JoinBenchmarkData.Spec("uniform duplicates both sides, 4/4", 1 << 12, 9_000, I32, false, 0, true, 0.7, 45),
        new JoinBenchmarkData.Spec("Zipf 1 both sides, sparse", 1 << 11, 1 << 12, I64, true, 1.0, true, 1, 46),
        new JoinBenchmarkData.Spec("no match", 1 << 10, 5_000, I64, false, 0, 0, 8));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("specs")
  void duckDbHoldsTheSameRelationsAndJoinsToTheSameAnswer(JoinBenchmarkData.Spec spec) throws Exception {
    try (JoinBenchmarkData.Workload w = JoinBenchmarkData.generate(null, spec)) {
      duck.load(spec, true, 0);
      assertSameTable("r", w.build.keys(), w.build.payloads());
      assertSameTable("s", w.probe.keys(), w.probe.payloads());
      JoinBenchmarkJoins.Timed t = duck.join();
      w.check(t, "duckdb");
      if (spec.selectivity() > 0) {
        assertTrue(t.rows() > 0, spec.name());
      }
    } finally {
      duck.drop();
    }
  }

  /** Count, position-weighted sums of both columns, and a few rows: any differing row changes the sums. */
  private static void assertSameTable(String table, HostColumn keys, HostColumn payloads) throws Exception {
    long n = keys.rowCount();
    long keySum = 0;
    long payloadSum = 0;
    for (long i = 0; i < n; i++) {
      keySum += JoinBenchmarkData.get(keys, i) * (i + 1);
      payloadSum += JoinBenchmarkData.get(payloads, i) * (i + 1);
    }
    String[] sql = duck.queryRow("SELECT count(*), sum(k::HUGEINT * (i + 1)), sum(v::HUGEINT * (i + 1)) FROM "
        + table);
    assertEquals(n, Long.parseLong(sql[0]), table + " rows");
    assertEquals(keySum, new BigInteger(sql[1]).longValue(), table + " keys");
    assertEquals(payloadSum, new BigInteger(sql[2]).longValue(), table + " payloads");
    for (long i : List.of(0L, 1L, n / 2, n - 1)) {
      String[] row = duck.queryRow("SELECT k, v FROM " + table + " WHERE i = " + i);
      assertArrayEquals(new String[] {Long.toString(JoinBenchmarkData.get(keys, i)),
          Long.toString(JoinBenchmarkData.get(payloads, i))}, row, table + " row " + i);
    }
  }
}
