package org.spillway.adapter.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import org.apache.calcite.avatica.server.ServerCustomizer;
import org.eclipse.jetty.security.ConstraintMapping;
import org.eclipse.jetty.security.ConstraintSecurityHandler;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.security.Constraint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP-level protection of a {@link SpillwayServer}: start-up refusals and warnings, and the
 * Jetty handlers in front of Avatica (body size limit, then BASIC authentication).
 */
final class ServerSecurity {
  private static final Logger LOG = LoggerFactory.getLogger(ServerSecurity.class);

  private ServerSecurity() {}

  /**
   * Refuses configurations that would expose data to anyone on the network, and logs what an operator
   * should fix in the users file.
   */
  static void checkAtStartup(ServerConfig config) throws IOException {
    if (config.usersFile() == null) {
      if (!config.allowAnonymous() && !isLoopback(config.host())) {
        throw new IOException("Refusing to serve " + config.host() + " without authentication:"
            + " anyone who can reach that address could query the data. Give --users FILE (see"
            + " 'spillway users add'), bind 127.0.0.1, or pass --allow-anonymous if this is intended");
      }
      return;
    }
    UsersFile.check(config.usersFile());
    for (String warning : UsersFile.warnings(config.usersFile())) {
      LOG.warn(warning);
    }
  }

  /** Whether every address {@code host} names is a loopback address; an unknown host fails. */
  static boolean isLoopback(String host) throws IOException {
    final InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      throw new IOException("Cannot resolve --host " + host + ": " + e.getMessage(), e);
    }
    for (InetAddress address : addresses) {
      if (!address.isLoopbackAddress()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Puts the body limit and, with a users file, BASIC authentication in front of the handlers Avatica
   * configured; Jetty's error pages lose their stack traces.
   */
  static ServerCustomizer<Server> handlers(ServerConfig config) {
    return server -> {
      final ErrorHandler errors = new ErrorHandler();
      errors.setShowStacks(false);
      server.setErrorHandler(errors);
      Handler inner = server.getHandler();
      if (config.usersFile() != null) {
        final ConstraintSecurityHandler authentication = basicAuthentication(config.usersFile());
        authentication.setHandler(inner);
        inner = authentication;
      }
      final RequestBodyLimit limit = new RequestBodyLimit(config.maxRequestBytes());
      limit.setHandler(inner);
      server.setHandler(limit);
    };
  }

  private static ConstraintSecurityHandler basicAuthentication(Path usersFile) {
    final Constraint constraint = new Constraint(Constraint.__BASIC_AUTH, Constraint.ANY_AUTH);
    // Without this Jetty would let unauthenticated requests through.
    constraint.setAuthenticate(true);
    final ConstraintMapping mapping = new ConstraintMapping();
    mapping.setConstraint(constraint);
    mapping.setPathSpec("/*");
    final ConstraintSecurityHandler security = new ConstraintSecurityHandler();
    security.setAuthenticator(new StrictBasicAuthenticator());
    try {
      security.setLoginService(new UsersLoginService(usersFile));
    } catch (IOException e) {
      // checkAtStartup read the same file a moment ago; a failure now is a race with an edit.
      throw new IllegalStateException("cannot read users file " + usersFile + ": " + e.getMessage(), e);
    }
    security.setConstraintMappings(new ConstraintMapping[] {mapping});
    return security;
  }
}
