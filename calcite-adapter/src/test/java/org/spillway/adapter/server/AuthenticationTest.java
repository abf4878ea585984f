package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** BASIC authentication: the right password connects, a wrong or missing one does not. */
class AuthenticationTest {
  @TempDir
  static Path dir;

  private static SpillwayServer server;

  @BeforeAll
  static void startServer() throws Exception {
    final Path users = Files.writeString(dir.resolve("users.properties"),
        "# test users\nalice: wonderland\nbob: builder, analyst\n");
    server = SpillwayServer.start(
        ServerConfig.of(TpchTestData.dataDir()).withPort(0).withUsersFile(users));
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private static String url(String user, String password) {
    return server.jdbcUrl() + ";avatica_user=" + user + ";avatica_password=" + password;
  }

  @Test
  void rightPasswordConnectsAndQueriesAreLoggedUnderTheUser() throws SQLException {
    final List<QueryLog.Entry> entries = new CopyOnWriteArrayList<>();
    final Consumer<QueryLog.Entry> listener = entries::add;
    server.queryLog().addListener(listener);
    try {
      for (String[] credentials : new String[][] {{"alice", "wonderland"}, {"bob", "builder"}}) {
        try (Connection connection = DriverManager.getConnection(url(credentials[0], credentials[1]));
            Statement statement = connection.createStatement();
            ResultSet resultSet = statement.executeQuery("select count(*) from region")) {
          assertTrue(resultSet.next());
          assertEquals(5, resultSet.getLong(1));
        }
      }
    } finally {
      server.queryLog().removeListener(listener);
    }
    assertEquals(List.of("alice", "bob"), entries.stream().map(QueryLog.Entry::user).toList());
  }

  @Test
  void wrongPasswordIsRejected() {
    assertUnauthorized(url("alice", "rabbit"));
  }

  @Test
  void unknownUserIsRejected() {
    assertUnauthorized(url("mallory", "wonderland"));
  }

  @Test
  void missingCredentialsAreRejected() {
    assertUnauthorized(server.jdbcUrl().replace(";authentication=BASIC", ""));
  }

  /**
   * Avatica's remote driver reports the HTTP 401 of its first request as a RuntimeException from
   * {@code getConnection}, not as an SQLException; either way no connection may come back.
   */
  private static void assertUnauthorized(String url) {
    final Exception e = assertThrows(Exception.class, () -> {
      try (Connection connection = DriverManager.getConnection(url);
          Statement statement = connection.createStatement()) {
        statement.executeQuery("select count(*) from region").close();
      }
    });
    assertTrue(e.getMessage().contains("HTTP/401"), e.toString());
  }
}
