package org.spillway.adapter.server;

import java.io.IOException;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.apache.calcite.avatica.remote.Service;
import org.apache.calcite.avatica.server.AvaticaHandler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.HandlerWrapper;

/**
 * Wraps Avatica's protobuf or JSON handler and exposes the authenticated user of the current request.
 *
 * <p>Avatica hands each request to the {@code Meta} synchronously on the Jetty thread that received
 * it, so a thread-local is enough to let the meta attribute statements to users. It sits inside the
 * security handler, where BASIC authentication has already set the remote user.
 */
final class RemoteUserHandler extends HandlerWrapper implements AvaticaHandler {
  /** The user reported when the server runs without authentication. */
  static final String ANONYMOUS = "anonymous";

  private static final ThreadLocal<String> CURRENT_USER = new ThreadLocal<>();
  private static final ThreadLocal<String> CURRENT_CLIENT = new ThreadLocal<>();

  private final AvaticaHandler avaticaHandler;

  RemoteUserHandler(AvaticaHandler avaticaHandler) {
    this.avaticaHandler = avaticaHandler;
    setHandler(avaticaHandler);
  }

  @Override
  public void handle(String target, Request baseRequest, HttpServletRequest request,
      HttpServletResponse response) throws IOException, ServletException {
    final String user = request.getRemoteUser();
    CURRENT_USER.set(user == null ? ANONYMOUS : user);
    CURRENT_CLIENT.set(request.getRemoteAddr() + ":" + request.getRemotePort());
    try {
      super.handle(target, baseRequest, request, response);
    } finally {
      CURRENT_USER.remove();
      CURRENT_CLIENT.remove();
    }
  }

  @Override
  public void setServerRpcMetadata(Service.RpcMetadataResponse metadata) {
    avaticaHandler.setServerRpcMetadata(metadata);
  }

  /** The user of the request this thread is serving, or {@link #ANONYMOUS}. */
  static String currentUser() {
    final String user = CURRENT_USER.get();
    return user == null ? ANONYMOUS : user;
  }

  /** The address and port of the client this thread is serving, for log lines; "unknown" outside. */
  static String currentClient() {
    final String client = CURRENT_CLIENT.get();
    return client == null ? "unknown" : client;
  }
}
