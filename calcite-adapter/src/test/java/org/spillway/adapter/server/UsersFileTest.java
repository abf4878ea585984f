package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
