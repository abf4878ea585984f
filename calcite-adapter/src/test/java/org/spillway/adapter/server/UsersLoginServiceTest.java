package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jetty.security.DefaultIdentityService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsersLoginServiceTest {
  @TempDir
  Path dir;

  @Test
  void hashedPlainAndJettyEncodedPasswordsAreAccepted() throws Exception {
    final Path file = Files.writeString(dir.resolve("users"),
        "alice: " + PasswordHashes.hash("wonderland".toCharArray(), 1_000) + "\n"
            + "bob: builder, analyst\n"
            + "carol: OBF:1v2j1uum1xtv1zej1zer1xtn1uvk1v1v\n");
    final UsersLoginService service = new UsersLoginService(file);
    service.setIdentityService(new DefaultIdentityService());
    // The second try of alice's password is answered from the verified-password cache.
    for (int attempt = 0; attempt < 2; attempt++) {
      assertEquals("alice",
          service.login("alice", "wonderland", null).getUserPrincipal().getName());
      assertNull(service.login("alice", "wonderlanD", null), "a wrong password never hits the cache");
    }
    assertNotNull(service.login("bob", "builder", null));
    assertNull(service.login("bob", "wonderland", null));
    assertNull(service.login("mallory", "wonderland", null));
    assertNull(service.login("alice", null, null));
  }

  @Test
  void userNamesAreLoggedWithoutLineBreaks() {
    assertEquals("mallory\\u000aINFO fake", UsersLoginService.printable("mallory\nINFO fake"));
    assertEquals("", UsersLoginService.printable(null));
  }
}
