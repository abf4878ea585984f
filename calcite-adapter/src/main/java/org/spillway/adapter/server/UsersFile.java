package org.spillway.adapter.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a BASIC-authentication users file before Jetty reads it, so that mistakes fail at start-up
 * with the file and line named instead of as rejected logins later.
 *
 * <p>The format is Jetty's realm file: one {@code user: password[,role...]} per line, {@code #}
 * comments; the password may be a salted hash ({@code PBKDF2:sha256:}, see {@link PasswordHashes}),
 * plain, or Jetty-encoded ({@code OBF:}, {@code MD5:}, {@code CRYPT:}). Roles are optional: every
 * listed user may connect.
 */
public final class UsersFile {
  private UsersFile() {}

  /** Returns the user names in {@code file}, or throws if the file is missing, empty or malformed. */
  public static List<String> check(Path file) throws IOException {
    return List.copyOf(read(file).keySet());
  }

  /**
   * Returns each user's credential (the text between the {@code :} and the first {@code ,}), in file
   * order, or throws if the file is missing, empty or malformed.
   */
  public static Map<String, String> read(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException("users file " + file.toAbsolutePath() + " does not exist or is not a file");
    }
    final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    final Map<String, String> users = new LinkedHashMap<>();
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
      if (users.containsKey(user)) {
        throw new IOException(where + ": user '" + user + "' is listed twice");
      }
      if (PasswordHashes.isHash(credential)) {
        try {
          PasswordHashes.requireWellFormed(credential);
        } catch (IllegalArgumentException e) {
          throw new IOException(where + ": user '" + user + "': " + e.getMessage(), e);
        }
      }
      users.put(user, credential);
    }
    if (users.isEmpty()) {
      throw new IOException("users file " + file.toAbsolutePath() + " lists no users");
    }
    return users;
  }

  /**
   * What an operator should fix in a valid users file: passwords that are not salted hashes (plain,
   * or Jetty's reversible or unsalted encodings), and a file that other users may read.
   */
  public static List<String> warnings(Path file) throws IOException {
    final List<String> warnings = new ArrayList<>();
    final List<String> unhashed = new ArrayList<>();
    read(file).forEach((user, credential) -> {
      if (!PasswordHashes.isHash(credential)) {
        unhashed.add(user);
      }
    });
    if (!unhashed.isEmpty()) {
      warnings.add("users file " + file.toAbsolutePath() + " stores the passwords of " + unhashed
          + " as plain text or a weak encoding; replace them with salted hashes: spillway users add"
          + " --file " + file + " --user NAME");
    }
    final Set<PosixFilePermission> permissions = posixPermissions(file);
    if (permissions.contains(PosixFilePermission.GROUP_READ)
        || permissions.contains(PosixFilePermission.OTHERS_READ)) {
      warnings.add("users file " + file.toAbsolutePath() + " is readable by other users"
          + " (permissions " + PosixFilePermissions.toString(permissions)
          + "); restrict it: chmod 600 " + file);
    }
    return warnings;
  }

  /** The file's POSIX permissions, or none where the file system has no such notion (Windows). */
  static Set<PosixFilePermission> posixPermissions(Path file) throws IOException {
    try {
      return Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException notPosix) {
      return Set.of();
    }
  }

  /**
   * Sets {@code user}'s credential in {@code file}, keeping the user's roles, every other line and the
   * file's permissions; a new file is readable by its owner only. The file is replaced atomically, so
   * a server starting meanwhile reads the old or the new version, never half of one.
   */
  public static void setCredential(Path file, String user, String credential) throws IOException {
    requireValidUserName(user);
    final boolean exists = Files.exists(file);
    final List<String> lines = exists
        ? new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8)) : new ArrayList<>();
    boolean replaced = false;
    for (int i = 0; i < lines.size(); i++) {
      final String line = lines.get(i).strip();
      final int colon = line.indexOf(':');
      if (line.startsWith("#") || colon <= 0 || !line.substring(0, colon).strip().equals(user)) {
        continue;
      }
      final int comma = line.indexOf(',', colon);
      lines.set(i, user + ": " + credential + (comma < 0 ? "" : line.substring(comma)));
      replaced = true;
    }
    if (!replaced) {
      lines.add(user + ": " + credential);
    }
    final Path absolute = file.toAbsolutePath();
    final Path temp = Files.createTempFile(absolute.getParent(), "." + absolute.getFileName(), ".tmp");
    try {
      if (exists && !posixPermissions(file).isEmpty()) {
        Files.setPosixFilePermissions(temp, posixPermissions(file));
      }
      // createTempFile made the file rw------- on POSIX systems, the right default for a new file.
      Files.write(temp, lines, StandardCharsets.UTF_8);
      Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** User names end at the first ':' of a line and may not start a comment. */
  static void requireValidUserName(String user) {
    if (user.isBlank() || !user.equals(user.strip()) || user.contains(":") || user.contains(",")
        || user.startsWith("#") || user.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("user name '" + user + "' must be non-empty, without"
          + " surrounding spaces, ':', ',' or control characters, and not start with '#'");
    }
  }
}
