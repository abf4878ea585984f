package org.spillway.adapter.server;

import java.io.IOException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.security.ServerAuthException;
import org.eclipse.jetty.security.authentication.BasicAuthenticator;
import org.eclipse.jetty.server.Authentication;

/**
 * Jetty's BASIC authenticator, except that an {@code Authorization} header that is not Base64
 * ({@code Basic !!!}) is refused with 400 Bad Request; Jetty's own lets the decoder's
 * IllegalArgumentException escape, which an unauthenticated client sees as a 500 with a stack trace.
 */
final class StrictBasicAuthenticator extends BasicAuthenticator {
  @Override
  public Authentication validateRequest(ServletRequest request, ServletResponse response,
      boolean mandatory) throws ServerAuthException {
    try {
      return super.validateRequest(request, response, mandatory);
    } catch (IllegalArgumentException malformed) {
      UsersLoginService.logFailure(request, "malformed Authorization header");
      try {
        ((HttpServletResponse) response).sendError(HttpServletResponse.SC_BAD_REQUEST,
            "Malformed Authorization header: expected 'Basic <base64 of user:password>'");
      } catch (IOException e) {
        throw new ServerAuthException(e);
      }
      return Authentication.SEND_FAILURE;
    }
  }
}
