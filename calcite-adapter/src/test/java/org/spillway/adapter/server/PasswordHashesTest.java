package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PasswordHashesTest {
  @Test
  void hashMatchesOnlyItsPasswordAndIsSalted() {
    final String hash = PasswordHashes.hash("wonderland".toCharArray(), 1_000);
    assertTrue(hash.startsWith("PBKDF2:sha256:1000:"), hash);
    assertTrue(PasswordHashes.matches("wonderland".toCharArray(), hash));
    assertFalse(PasswordHashes.matches("wonderlanD".toCharArray(), hash));
    assertFalse(PasswordHashes.matches("".toCharArray(), hash));
    assertNotEquals(hash, PasswordHashes.hash("wonderland".toCharArray(), 1_000),
        "a fresh salt makes every hash of one password different");
    assertFalse(hash.contains("wonderland"));
  }

  @Test
  void theIterationCountIsReadFromTheHash() {
    final String fewer = PasswordHashes.hash("pw".toCharArray(), 7);
    assertTrue(PasswordHashes.matches("pw".toCharArray(), fewer));
    // The same salt and hash under another count must not match.
    assertFalse(PasswordHashes.matches("pw".toCharArray(), fewer.replace(":7:", ":8:")));
  }

  @Test
  void malformedHashesAreRefused() {
    for (String bad : new String[] {"PBKDF2:sha256:", "PBKDF2:sha256:x:AAAA:AAAA",
        "PBKDF2:sha256:10:AAAA", "PBKDF2:sha256:10:!!!!:AAAA", "PBKDF2:sha256:0:AAAA:AAAA",
        "PBKDF2:sha256:10::AAAA", "plain"}) {
      assertThrows(IllegalArgumentException.class, () -> PasswordHashes.requireWellFormed(bad), bad);
    }
  }
}
