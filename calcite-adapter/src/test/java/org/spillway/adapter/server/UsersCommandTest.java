package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code spillway users add}: the hash it writes is what the server accepts. */
class UsersCommandTest {
  @TempDir
  Path dir;

  /** Runs {@code users add} with {@code stdin} as the piped password; returns the exit code. */
  private static int add(Path file, String user, String stdin, StringWriter err) {
    final UsersCommand.Add add = new UsersCommand.Add();
    add.console = null;
    add.stdin = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
    final CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> type) throws Exception {
        return type == UsersCommand.Add.class ? type.cast(add) : CommandLine.defaultFactory().create(type);
      }
    };
    final CommandLine commandLine = new CommandLine(new UsersCommand(), factory);
    commandLine.setOut(new PrintWriter(new StringWriter(), true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute("add", "--file", file.toString(), "--user", user);
  }

  @Test
  void addedUserLogsInWithTheHashedPassword() throws Exception {
    final Path users = dir.resolve("users");
    assertEquals(0, add(users, "alice", "s3cret pass\n", new StringWriter()));
    final String text = Files.readString(users);
    assertTrue(text.startsWith("alice: " + PasswordHashes.PREFIX + PasswordHashes.DEFAULT_ITERATIONS
        + ":"), text);
    assertFalse(text.contains("s3cret"), text);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(users)));
    assertEquals(List.of(), UsersFile.warnings(users));

    try (SpillwayServer server = SpillwayServer.start(
        ServerConfig.of(TpchTestData.dataDir()).withPort(0).withUsersFile(users))) {
      final String url = server.jdbcUrl() + ";avatica_user=alice;avatica_password=";
      try (Connection connection = DriverManager.getConnection(url + "s3cret pass");
          Statement statement = connection.createStatement();
          ResultSet resultSet = statement.executeQuery("select count(*) from region")) {
        assertTrue(resultSet.next());
        assertEquals(5, resultSet.getLong(1));
      }
      final Exception wrong = assertThrows(Exception.class, () -> {
        try (Connection connection = DriverManager.getConnection(url + "s3cret")) {
          connection.createStatement().executeQuery("select 1").close();
        }
      });
      assertTrue(wrong.getMessage().contains("HTTP/401"), wrong.toString());
    }
  }

  @Test
  void emptyPasswordAndBadUserNameAreRefusedAndWriteNothing() {
    final Path users = dir.resolve("users");
    final StringWriter err = new StringWriter();
    assertNotEquals(0, add(users, "alice", "\n", err));
    assertTrue(err.toString().contains("must not be empty"), err.toString());
    final StringWriter badName = new StringWriter();
    assertNotEquals(0, add(users, "al:ice", "pw\n", badName));
    assertTrue(badName.toString().contains("--user"), badName.toString());
    assertFalse(Files.exists(users));
  }
}
