package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.spillway.storage.StorageAllocator;

/** A timed-out or cancelled long query frees its resources, and the server keeps serving. */
class CancelTest {
  /** 60175 x 60175 rows at SF 0.01: far more than any test will fetch. */
  static final String ENDLESS_QUERY =
      "select a.l_orderkey, b.l_partkey from lineitem a, lineitem b";

  private static SpillwayServer timeoutServer;
  private static SpillwayServer plainServer;
  private static long baseline;

  @BeforeAll
  static void startServers() throws Exception {
    try (Connection embedded = TpchTestData.embedded()) {
      // every table the tests read, so that the baseline holds them whichever test classes ran before in this JVM
      for (String table : new String[] {"lineitem", "region", "nation"}) {
        ResultRows.query(embedded, "select count(*) from " + table);
      }
    }
    baseline = StorageAllocator.root().getAllocatedMemory();
    assertTrue(baseline > 0, "lineitem lives in Arrow memory, so the memory checks have teeth");
    final ServerConfig config = ServerConfig.of(TpchTestData.dataDir()).withPort(0);
    timeoutServer = SpillwayServer.start(config.withQueryTimeout(Duration.ofSeconds(1)));
    plainServer = SpillwayServer.start(config);
  }

  @AfterAll
  static void stopServers() {
    timeoutServer.close();
    plainServer.close();
  }

  @Test
  void queryTimeoutCancelsTheQueryAndFreesIt() throws Exception {
    final List<QueryLog.Entry> entries = listen(timeoutServer);
    try (Connection remote = DriverManager.getConnection(timeoutServer.jdbcUrl());
        Statement statement = remote.createStatement()) {
      final long start = System.nanoTime();
      // Avatica's remote driver raises errors of later frames from next() as a RuntimeException
      // (AvaticaClientRuntimeException), of the first frame as an SQLException.
      final Exception e = assertThrows(Exception.class, () -> {
        try (ResultSet resultSet = statement.executeQuery(ENDLESS_QUERY)) {
          while (resultSet.next()) {
            // Fetch frame after frame until the server's timeout stops the query.
          }
        }
      });
      final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
      assertTrue(e.getMessage().contains("query timeout of 1000 ms"), e.toString());
      assertTrue(e.toString().contains("(" + GuardedJdbcMeta.TIMEOUT_SQLSTATE + ")"), e.toString());
      assertTrue(seconds < 30, "timeout took effect after " + seconds + " s");
      // The same statement handle runs the next query: the server replaced the cancelled one.
      try (ResultSet resultSet = statement.executeQuery("select count(*) from region")) {
        assertTrue(resultSet.next());
        assertEquals(5, resultSet.getLong(1));
      }
      assertStillServing(remote);
    }
    assertEquals(QueryLog.Outcome.TIMED_OUT, entries.get(0).outcome(), entries.toString());
    assertFreed(timeoutServer);
  }

  @Test
  void clientCancelFromAnotherThreadFreesTheQuery() throws Exception {
    final List<QueryLog.Entry> entries = listen(plainServer);
    final ScheduledExecutorService canceller = Executors.newSingleThreadScheduledExecutor();
    try (Connection remote = DriverManager.getConnection(plainServer.jdbcUrl())) {
      final Statement statement = remote.createStatement();
      final SQLException e = assertThrows(SQLException.class, () -> {
        try (ResultSet resultSet = statement.executeQuery(ENDLESS_QUERY)) {
          canceller.schedule(() -> {
            statement.cancel();
            return null;
          }, 500, TimeUnit.MILLISECONDS);
          while (resultSet.next()) {
            // Fetch until the cancel from the other thread stops the result set.
          }
        }
      });
      assertTrue(e.getMessage().toLowerCase().contains("cancel"), e.getMessage());
      statement.close();
      assertStillServing(remote);
    } finally {
      canceller.shutdownNow();
    }
    assertEquals(QueryLog.Outcome.CLOSED, entries.get(0).outcome(), entries.toString());
    assertTrue(entries.get(0).rows() > 0, entries.get(0).format());
    assertFreed(plainServer);
  }

  private static List<QueryLog.Entry> listen(SpillwayServer server) {
    final List<QueryLog.Entry> entries = new CopyOnWriteArrayList<>();
    final Consumer<QueryLog.Entry> listener = entries::add;
    server.queryLog().addListener(listener);
    return entries;
  }

  private static void assertStillServing(Connection remote) throws SQLException {
    try (Statement statement = remote.createStatement();
        ResultSet resultSet = statement.executeQuery("select count(*) from nation")) {
      assertTrue(resultSet.next());
      assertEquals(25, resultSet.getLong(1));
    }
  }

  private static void assertFreed(SpillwayServer server) {
    assertEquals(0, server.meta().openQueries(), "queries still open on the server");
    assertEquals(0, server.admission().inUse(), "admission permits still held");
    assertEquals(baseline, StorageAllocator.root().getAllocatedMemory(),
        "Arrow memory after the cancelled query differs from before it");
  }
}
