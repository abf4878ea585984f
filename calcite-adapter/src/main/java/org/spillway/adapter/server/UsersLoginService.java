package org.spillway.adapter.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import javax.servlet.ServletRequest;
import org.eclipse.jetty.security.AbstractLoginService;
import org.eclipse.jetty.server.UserIdentity;
import org.eclipse.jetty.util.security.Credential;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jetty's login service over the {@link UsersFile}: accepts salted {@link PasswordHashes} as well as
 * Jetty's own encodings, and logs every failed login with the client's address.
 *
 * <p>The file is read once, when the server starts.
 */
final class UsersLoginService extends AbstractLoginService {
  private static final Logger LOG = LoggerFactory.getLogger(UsersLoginService.class);
  private static final String[] NO_ROLES = new String[0];

  private final Map<String, Credential> credentials;

  UsersLoginService(Path usersFile) throws IOException {
    final Map<String, String> users = UsersFile.read(usersFile);
    final Map<String, Credential> byUser = new HashMap<>();
    users.forEach((user, text) -> byUser.put(user, PasswordHashes.isHash(text)
        ? new HashedCredential(text) : Credential.getCredential(text)));
    this.credentials = Map.copyOf(byUser);
    setName("Spillway");
  }

  @Override
  public UserIdentity login(String username, Object credential, ServletRequest request) {
    final UserIdentity identity = super.login(username, credential, request);
    if (identity == null) {
      logFailure(request, "user '" + printable(username) + "': wrong password or unknown user");
    }
    return identity;
  }

  /** One warning line per refused login; the address lets an operator block a guesser. */
  static void logFailure(ServletRequest request, String why) {
    LOG.warn("failed login from {}: {}",
        request == null ? "unknown address" : request.getRemoteAddr() + ":" + request.getRemotePort(),
        why);
  }

  /** The user name as the client sent it, with line breaks and other controls escaped: no fake log lines. */
  static String printable(String text) {
    if (text == null) {
      return "";
    }
    final StringBuilder out = new StringBuilder(Math.min(text.length(), 200));
    text.codePoints().limit(200).forEach(c -> {
      if (Character.isISOControl(c)) {
        out.append(String.format("\\u%04x", c));
      } else {
        out.appendCodePoint(c);
      }
    });
    return out.toString();
  }

  @Override
  protected UserPrincipal loadUserInfo(String username) {
    final Credential credential = credentials.get(username);
    return credential == null ? null : new UserPrincipal(username, credential);
  }

  @Override
  protected String[] loadRoleInfo(UserPrincipal user) {
    // Roles are not used: the security constraint admits any authenticated user ("**").
    return NO_ROLES;
  }

  /**
   * A {@link PasswordHashes} credential. BASIC authentication sends the password with every HTTP
   * request and PBKDF2 is slow on purpose, so the last password that matched is remembered as a
   * keyed SHA-256 digest: repeated requests of a logged-in client cost one HMAC, while a wrong
   * password always pays the full PBKDF2 price.
   */
  private static final class HashedCredential extends Credential {
    private static final long serialVersionUID = 1L;

    private final String hash;
    private final transient VerifiedPasswordCache verified = new VerifiedPasswordCache();

    HashedCredential(String hash) {
      this.hash = hash;
    }

    @Override
    public boolean check(Object credentials) {
      final char[] password;
      if (credentials instanceof char[]) {
        password = ((char[]) credentials).clone();
      } else if (credentials instanceof String) {
        password = ((String) credentials).toCharArray();
      } else {
        return false;  // another Credential object: not comparable with a one-way hash
      }
      try {
        if (verified.contains(password)) {
          return true;
        }
        final boolean matches = PasswordHashes.matches(password, hash);
        if (matches) {
          verified.remember(password);
        }
        return matches;
      } finally {
        PasswordHashes.wipe(password);
      }
    }
  }
}
