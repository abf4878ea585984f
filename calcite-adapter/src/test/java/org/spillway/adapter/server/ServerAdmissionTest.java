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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The statement limit as a remote client sees it. The test itself holds the server's only slot,
 * which makes "the server is busy" deterministic instead of a race between slow queries.
 */
class ServerAdmissionTest {
  private static SpillwayServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = SpillwayServer.start(ServerConfig.of(TpchTestData.dataDir()).withPort(0)
        .withAdmission(1, Duration.ofSeconds(1)));
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private static long countNations(Connection remote) throws SQLException {
    try (Statement statement = remote.createStatement();
        ResultSet resultSet = statement.executeQuery("select count(*) from nation")) {
      assertTrue(resultSet.next());
      return resultSet.getLong(1);
    }
  }

  @Test
  void busyServerRefusesAfterTheWaitWithAClearError() throws Exception {
    try (Connection remote = DriverManager.getConnection(server.jdbcUrl())) {
      try (AdmissionControl.Permit taken = server.admission().acquire()) {
        final SQLException e = assertThrows(SQLException.class, () -> countNations(remote));
        assertEquals(AdmissionControl.BUSY_SQLSTATE, e.getSQLState(), e.toString());
        assertTrue(e.getMessage().contains("Spillway server is busy"), e.getMessage());
        assertTrue(e.getMessage().contains("--max-concurrent 1"), e.getMessage());
        assertTrue(e.getMessage().contains("within 1000 ms"), e.getMessage());
      }
      assertEquals(25, countNations(remote), "served again once the slot is free");
    }
    assertEquals(0, server.admission().inUse());
  }

  @Test
  void waitingStatementRunsWhenTheSlotFreesInTime() throws Exception {
    try (Connection remote = DriverManager.getConnection(server.jdbcUrl())) {
      final CompletableFuture<Long> waiting;
      try (AdmissionControl.Permit taken = server.admission().acquire()) {
        waiting = CompletableFuture.supplyAsync(() -> {
          try {
            return countNations(remote);
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        });
        Thread.sleep(100);
        assertTrue(!waiting.isDone(), "the statement must wait while the slot is taken");
      }
      assertEquals(25, waiting.get(10, TimeUnit.SECONDS));
    }
  }
}
