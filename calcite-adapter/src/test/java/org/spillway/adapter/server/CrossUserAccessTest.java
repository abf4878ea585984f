package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.calcite.avatica.AvaticaConnection;
import org.apache.calcite.avatica.AvaticaStatement;
import org.apache.calcite.avatica.ColumnMetaData;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.remote.Driver.Serialization;
import org.apache.calcite.avatica.remote.Service;
import org.apache.calcite.avatica.remote.TypedValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #12 item 13: bob, authenticated, knows alice's connection and statement ids and tries every
 * request on them over raw HTTP; nothing of alice's is read, closed or created, over both wire formats.
 */
class CrossUserAccessTest {
  private static final String REGION_KEYS = "select r_regionkey from region order by r_regionkey";

  /**
   * 1500 rows at SF 0.01: more than the 100 rows of Avatica's first frame, so the rest wait on the
   * server for alice's fetches, which is what bob tried to read.
   */
  private static final String CUSTOMER_KEYS = "select c_custkey from customer order by c_custkey";
  private static final int CUSTOMERS = 1500;

  @TempDir
  static Path dir;

  private static SpillwayServer protobufServer;
  private static SpillwayServer jsonServer;

  @BeforeAll
  static void startServers() throws Exception {
    // Hashed passwords with few iterations: the test exercises the hashed login path, quickly.
    final Path users = Files.writeString(dir.resolve("users"),
        "alice: " + PasswordHashes.hash("wonderland".toCharArray(), 1_000) + "\n"
            + "bob: " + PasswordHashes.hash("builder".toCharArray(), 1_000) + "\n");
    final ServerConfig config =
        ServerConfig.of(TpchTestData.dataDir()).withPort(0).withUsersFile(users);
    protobufServer = SpillwayServer.start(config);
    jsonServer = SpillwayServer.start(config.withSerialization(Serialization.JSON));
  }

  @AfterAll
  static void stopServers() {
    protobufServer.close();
    jsonServer.close();
  }

  private static SpillwayServer server(Serialization serialization) {
    return serialization == Serialization.JSON ? jsonServer : protobufServer;
  }

  private static Connection connect(SpillwayServer server, String user, String password)
      throws Exception {
    return DriverManager.getConnection(
        server.jdbcUrl() + ";avatica_user=" + user + ";avatica_password=" + password);
  }

  @ParameterizedTest
  @EnumSource(value = Serialization.class, names = {"PROTOBUF", "JSON"})
  void bobCannotUseAlicesConnectionOrStatement(Serialization serialization) throws Exception {
    final SpillwayServer server = server(serialization);
    final RawAvaticaClient bob = new RawAvaticaClient(server, "bob", "builder");
    try (Connection alice = connect(server, "alice", "wonderland");
        Statement statement = alice.createStatement()) {
      try (ResultSet rows = statement.executeQuery(CUSTOMER_KEYS)) {
        final List<Integer> seen = new ArrayList<>();
        assertTrue(rows.next());
        seen.add(rows.getInt(1));
        final String aliceConnection = alice.unwrap(AvaticaConnection.class).handle.id;
        final int aliceStatement = statement.unwrap(AvaticaStatement.class).handle.id;
        // Not the meta's sequential numbering (it starts at 0 for the server's first statement).
        assertTrue(aliceStatement > 1000, "statement ids are random: " + aliceStatement);

        // The repro: fetch alice's next rows, close her statement and connection.
        assertRefused(bob.send(new Service.FetchRequest(aliceConnection, aliceStatement, 100, 2)),
            "08003");
        assertRefused(bob.send(new Service.SyncResultsRequest(aliceConnection, aliceStatement,
            null, 0)), "08003");
        assertRefused(bob.send(new Service.CreateStatementRequest(aliceConnection)), "08003");
        assertRefused(bob.send(new Service.PrepareRequest(aliceConnection, REGION_KEYS, -1)),
            "08003");
        assertRefused(bob.send(new Service.TablesRequest(aliceConnection, null, null, null, null)),
            "08003");
        assertRefused(bob.send(new Service.ConnectionSyncRequest(aliceConnection,
            new org.apache.calcite.avatica.ConnectionPropertiesImpl())), "08003");
        assertRefused(bob.send(new Service.CloseStatementRequest(aliceConnection, aliceStatement)),
            "08003");
        assertRefused(bob.send(new Service.CloseConnectionRequest(aliceConnection)), "08003");
        // Taking over the id by opening it again is refused too.
        assertRefused(bob.send(new Service.OpenConnectionRequest(aliceConnection, Map.of())),
            "08002");

        // With a connection of his own, alice's statement id is still not his.
        final String bobConnection = UUID.randomUUID().toString();
        assertInstanceOf(Service.OpenConnectionResponse.class,
            bob.send(new Service.OpenConnectionRequest(bobConnection, Map.of())));
        assertRefused(bob.send(new Service.FetchRequest(bobConnection, aliceStatement, 100, 2)),
            "26000");
        assertRefused(bob.send(new Service.PrepareAndExecuteRequest(bobConnection, aliceStatement,
            REGION_KEYS, -1, 10)), "26000");
        assertRefused(bob.send(new Service.ExecuteRequest(
            new Meta.StatementHandle(bobConnection, aliceStatement, null), List.of(), 10)), "26000");
        assertRefused(bob.send(new Service.ExecuteBatchRequest(bobConnection, aliceStatement,
            List.of(List.of(TypedValue.ofLocal(ColumnMetaData.Rep.INTEGER, 1))))), "26000");
        assertRefused(bob.send(new Service.PrepareAndExecuteBatchRequest(bobConnection,
            aliceStatement, List.of(REGION_KEYS))), "26000");
        assertRefused(bob.send(new Service.CloseStatementRequest(bobConnection, aliceStatement)),
            "26000");
        // His own statements work as before.
        final Service.CreateStatementResponse own = (Service.CreateStatementResponse)
            bob.send(new Service.CreateStatementRequest(bobConnection));
        final Service.ExecuteResponse result = (Service.ExecuteResponse) bob.send(
            new Service.PrepareAndExecuteRequest(bobConnection, own.statementId, REGION_KEYS, -1,
                10));
        assertEquals(own.statementId, result.results.get(0).statementId);
        assertEquals(5, count(result.results.get(0).firstFrame));
        // A batch on his own prepared statement reaches the driver (protobuf sends its batches in
        // protobuf form, which the server converts).
        final Service.PrepareResponse prepared = (Service.PrepareResponse) bob.send(
            new Service.PrepareRequest(bobConnection,
                "select r_name from region where r_regionkey = ?", -1));
        final Service.Response batch = bob.send(new Service.ExecuteBatchRequest(bobConnection,
            prepared.statement.id,
            List.of(List.of(TypedValue.ofLocal(ColumnMetaData.Rep.INTEGER, 1)))));
        final Service.ExecuteBatchResponse counts =
            assertInstanceOf(Service.ExecuteBatchResponse.class, batch);
        assertEquals(prepared.statement.id, counts.statementId);
        assertEquals(1, counts.updateCounts.length);
        assertInstanceOf(Service.CloseConnectionResponse.class,
            bob.send(new Service.CloseConnectionRequest(bobConnection)));

        // Alice's result and connection are untouched: every row arrives, in order, exactly once.
        while (rows.next()) {
          seen.add(rows.getInt(1));
        }
        assertEquals(CUSTOMERS, seen.size());
        for (int i = 0; i < CUSTOMERS; i++) {
          assertEquals(i + 1, seen.get(i), "row " + i);
        }
      }
      try (ResultSet again = statement.executeQuery("select count(*) from nation")) {
        assertTrue(again.next());
        assertEquals(25, again.getLong(1));
      }
    }
    assertEquals(0, server.meta().ownership().connections(), "closed connections are forgotten");
  }

  @ParameterizedTest
  @EnumSource(value = Serialization.class, names = {"PROTOBUF", "JSON"})
  void twoUsersQueryingAtOnceEachSeeTheirOwnResults(Serialization serialization) throws Exception {
    final SpillwayServer server = server(serialization);
    try (Connection alice = connect(server, "alice", "wonderland");
        Connection bob = connect(server, "bob", "builder");
        Statement aliceStatement = alice.createStatement();
        Statement bobStatement = bob.createStatement()) {
      // Statement ids are numbered across connections; interleaved fetches must not mix them up.
      try (ResultSet aliceRows = aliceStatement.executeQuery(CUSTOMER_KEYS);
          ResultSet bobRows = bobStatement.executeQuery(CUSTOMER_KEYS + " desc")) {
        final List<Integer> aliceSeen = new ArrayList<>();
        final List<Integer> bobSeen = new ArrayList<>();
        boolean more = true;
        while (more) {
          more = false;
          if (aliceRows.next()) {
            aliceSeen.add(aliceRows.getInt(1));
            more = true;
          }
          if (bobRows.next()) {
            bobSeen.add(bobRows.getInt(1));
            more = true;
          }
        }
        assertEquals(CUSTOMERS, aliceSeen.size());
        assertEquals(CUSTOMERS, bobSeen.size());
        for (int i = 0; i < CUSTOMERS; i++) {
          assertEquals(i + 1, aliceSeen.get(i), "alice's row " + i);
          assertEquals(CUSTOMERS - i, bobSeen.get(i), "bob's row " + i);
        }
      }
      assertFalse(alice.unwrap(AvaticaConnection.class).handle.id
          .equals(bob.unwrap(AvaticaConnection.class).handle.id));
    }
  }

  private static int count(org.apache.calcite.avatica.Meta.Frame frame) {
    int rows = 0;
    for (Object ignored : frame.rows) {
      rows++;
    }
    return rows;
  }

  private static void assertRefused(Service.Response response, String sqlState) {
    final Service.ErrorResponse error = assertInstanceOf(Service.ErrorResponse.class, response);
    assertEquals(sqlState, error.sqlState, error.errorMessage);
  }
}
