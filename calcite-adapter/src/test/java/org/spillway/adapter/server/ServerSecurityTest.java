package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Issue #12 item 15: the server does not start exposed without authentication. */
class ServerSecurityTest {
  @TempDir
  Path dir;

  @Test
  void loopbackIsRecognised() throws IOException {
    for (String host : new String[] {"127.0.0.1", "127.0.0.2", "localhost", "::1"}) {
      assertTrue(ServerSecurity.isLoopback(host), host);
    }
    for (String host : new String[] {"0.0.0.0", "::", "10.1.2.3", "192.168.0.1"}) {
      assertFalse(ServerSecurity.isLoopback(host), host);
    }
  }

  @Test
  void nonLoopbackHostWithoutUsersRefusesToStart() {
    final ServerConfig exposed = ServerConfig.of(TpchTestData.dataDir()).withPort(0).withHost("0.0.0.0");
    final IOException e = assertThrows(IOException.class, () -> SpillwayServer.start(exposed));
    assertTrue(e.getMessage().contains("0.0.0.0") && e.getMessage().contains("--users")
        && e.getMessage().contains("--allow-anonymous"), e.getMessage());
  }

  /** Checked without binding: tests only listen on loopback. */
  @Test
  void usersFileOrAllowAnonymousLetsANonLoopbackHostStart() throws IOException {
    final ServerConfig exposed = ServerConfig.of(TpchTestData.dataDir()).withHost("0.0.0.0");
    ServerSecurity.checkAtStartup(exposed.withAllowAnonymous(true));
    final Path users = Files.writeString(dir.resolve("users"), "alice: wonderland\n");
    ServerSecurity.checkAtStartup(exposed.withUsersFile(users));
    ServerSecurity.checkAtStartup(ServerConfig.of(TpchTestData.dataDir()));
  }

  @Test
  void commandLineRefusesAndNamesTheOptions() {
    final StringWriter err = new StringWriter();
    final CommandLine commandLine = new CommandLine(new ServerCommand());
    commandLine.setErr(new PrintWriter(err, true));
    final int exit = commandLine.execute("--data-dir", TpchTestData.dataDir().toString(),
        "--host", "0.0.0.0", "--port", "0");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("--allow-anonymous"), err.toString());
  }

  @Test
  void securityOptionsReachTheConfiguration() {
    final ServerCommand command = new ServerCommand();
    new CommandLine(command).parseArgs("--data-dir", "/d", "--allow-anonymous",
        "--max-request-size", "1m");
    final ServerConfig config = command.toConfig();
    assertTrue(config.allowAnonymous());
    assertEquals(1L << 20, config.maxRequestBytes());

    final ServerCommand defaults = new ServerCommand();
    new CommandLine(defaults).parseArgs("--data-dir", "/d");
    assertFalse(defaults.toConfig().allowAnonymous());
    assertEquals(ServerConfig.DEFAULT_MAX_REQUEST_BYTES, defaults.toConfig().maxRequestBytes());

    final ServerCommand bad = new ServerCommand();
    new CommandLine(bad).parseArgs("--data-dir", "/d", "--max-request-size", "lots");
    assertTrue(assertThrows(CommandLine.ParameterException.class, bad::toConfig).getMessage()
        .contains("--max-request-size"));
  }
}
