package org.spillway.adapter.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks a BASIC-authentication users file before Jetty reads it, so that mistakes fail at start-up
 * with the file and line named instead of as rejected logins later.
 *
 * <p>The format is Jetty's realm file: one {@code user: password[,role...]} per line, {@code #}
 * comments; the password may be plain or Jetty-obfuscated ({@code OBF:}, {@code MD5:},
 * {@code CRYPT:}). Roles are optional: every listed user may connect.
 */
public final class UsersFile {
  private UsersFile() {}

  /** Returns the user names in {@code file}, or throws if the file is missing, empty or malformed. */
  public static List<String> check(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException("users file " + file.toAbsolutePath() + " does not exist or is not a file");
    }
    final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    final List<String> users = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      final String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      final int colon = line.indexOf(':');
      final String where = file.toAbsolutePath() + ":" + (i + 1);
      if (colon <= 0) {
        throw new IOException(where + ": expected 'user: password[,role...]' but found no user name"
            + " before a ':'");
      }
      final String user = line.substring(0, colon).strip();
      final String credential = line.substring(colon + 1).split(",", -1)[0].strip();
      if (credential.isEmpty()) {
        throw new IOException(where + ": user '" + user + "' has an empty password");
      }
      if (users.contains(user)) {
        throw new IOException(where + ": user '" + user + "' is listed twice");
      }
      users.add(user);
    }
    if (users.isEmpty()) {
      throw new IOException("users file " + file.toAbsolutePath() + " lists no users");
    }
    return users;
  }
}
