package org.spillway.adapter.server;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One server over the TPC-H test catalog (loopback, a free port, the default configuration) shared by the tests
 * of a class: {@code @RegisterExtension static final TpchServerExtension SERVER = new TpchServerExtension();}.
 */
final class TpchServerExtension implements BeforeAllCallback, AfterAllCallback {
  private SpillwayServer server;

  @Override public void beforeAll(ExtensionContext context) throws Exception {
    server = SpillwayServer.start(ServerConfig.of(TpchTestData.dataDir()).withPort(0));
  }

  @Override public void afterAll(ExtensionContext context) {
    server.close();
  }

  /** The remote JDBC URL of the running server. */
  String jdbcUrl() {
    return server.jdbcUrl();
  }
}
