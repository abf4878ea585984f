package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsersFileTest {
  @TempDir
  Path dir;

  @Test
  void listsUsersAndSkipsCommentsAndRoles() throws IOException {
    final Path file = Files.writeString(dir.resolve("users"),
        "# analysts\nalice: secret\n\nbob: OBF:1v2j1uum1xtv1zej1zer1xtn1uvk1v1v, analyst\n");
    assertEquals(List.of("alice", "bob"), UsersFile.check(file));
  }

  @Test
  void missingFileIsNamed() {
    final Path file = dir.resolve("nope");
    final IOException e = assertThrows(IOException.class, () -> UsersFile.check(file));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
  }

  @Test
  void malformedLineIsNamedByNumber() throws IOException {
    final Path file = Files.writeString(dir.resolve("users"), "alice: secret\nbob secret\n");
    final IOException e = assertThrows(IOException.class, () -> UsersFile.check(file));
    assertTrue(e.getMessage().contains(file + ":2"), e.getMessage());
  }

  @Test
  void emptyPasswordAndDuplicateUserAndEmptyFileAreRefused() throws IOException {
    final Path noPassword = Files.writeString(dir.resolve("a"), "alice:\n");
    assertTrue(assertThrows(IOException.class, () -> UsersFile.check(noPassword)).getMessage()
        .contains("empty password"));
    final Path twice = Files.writeString(dir.resolve("b"), "alice: x\nalice: y\n");
    assertTrue(assertThrows(IOException.class, () -> UsersFile.check(twice)).getMessage()
        .contains("listed twice"));
    final Path empty = Files.writeString(dir.resolve("c"), "# nobody\n");
    assertTrue(assertThrows(IOException.class, () -> UsersFile.check(empty)).getMessage()
        .contains("lists no users"));
  }

  @Test
  void plainPasswordsAndReadableFilesAreWarnedAbout() throws IOException {
    final Path file = Files.writeString(dir.resolve("users"),
        "alice: secret\nbob: OBF:1v2j1uum1xtv1zej1zer1xtn1uvk1v1v\ncarol: "
        + PasswordHashes.hash("pw".toCharArray(), 10) + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    final List<String> warnings = UsersFile.warnings(file);
    assertEquals(2, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("[alice, bob]") && warnings.get(0).contains("spillway users add"),
        warnings.get(0));
    assertTrue(warnings.get(1).contains("readable by other users") && warnings.get(1).contains("chmod 600"),
        warnings.get(1));
  }

  @Test
  void hashedPasswordsInAPrivateFileRaiseNoWarning() throws IOException {
    final Path file = Files.writeString(dir.resolve("users"),
        "alice: " + PasswordHashes.hash("pw".toCharArray(), 10) + ", analyst\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertEquals(List.of(), UsersFile.warnings(file));
  }

  @Test
  void damagedHashIsNamedByLine() throws IOException {
    final Path file = Files.writeString(dir.resolve("users"), "alice: x\nbob: PBKDF2:sha256:10:AA\n");
    final IOException e = assertThrows(IOException.class, () -> UsersFile.check(file));
    assertTrue(e.getMessage().contains(file + ":2") && e.getMessage().contains("bob"), e.getMessage());
  }

  @Test
  void setCredentialReplacesOneUserAndKeepsTheRest() throws IOException {
    final Path file = Files.writeString(dir.resolve("users"),
        "# analysts\nalice: old, analyst\nbob: builder\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    UsersFile.setCredential(file, "alice", "NEW");
    UsersFile.setCredential(file, "carol", "C");
    assertEquals(List.of("# analysts", "alice: NEW, analyst", "bob: builder", "carol: C"),
        Files.readAllLines(file));
    assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals(List.of("users"), List.of(dir.toFile().list()), "no temporary file left behind");
  }
}
