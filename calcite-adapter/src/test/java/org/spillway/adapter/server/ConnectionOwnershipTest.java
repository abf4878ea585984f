package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.avatica.remote.AvaticaRuntimeException;
import org.apache.calcite.avatica.remote.Service;
import org.junit.jupiter.api.Test;

class ConnectionOwnershipTest {
  private final ConnectionOwnership ownership = new ConnectionOwnership();

  @Test
  void onlyTheUserWhoOpenedAConnectionMayUseIt() {
    assertTrue(ownership.claim("c1", "alice"));
    ownership.requireOwner("c1", "alice");
    assertRefused("08003", () -> ownership.requireOwner("c1", "bob"));
    assertRefused("08003", () -> ownership.requireOwner("nope", "alice"));
    assertRefused("08003", () -> ownership.requireOwner(null, "alice"));
  }

  @Test
  void anotherUserCannotTakeOverAnIdButTheOwnerMayReopenIt() {
    assertTrue(ownership.claim("c1", "alice"));
    assertRefused("08002", () -> ownership.claim("c1", "bob"));
    assertEquals("alice", ownership.ownerOf("c1"));
    // Avatica's client reopens its own id after the server expired the connection.
    assertFalse(ownership.claim("c1", "alice"));
    ownership.release("c1");
    assertNull(ownership.ownerOf("c1"));
    assertTrue(ownership.claim("c1", "bob"));
  }

  @Test
  void statementsBelongToTheConnectionThatHandedThemOut() {
    ownership.claim("a", "alice");
    ownership.claim("b", "bob");
    final int alices = ownership.addStatement("a", 0);
    final int bobs = ownership.addStatement("b", 1);
    assertEquals(0, ownership.requireStatement("a", alices, "alice"));
    assertEquals(1, ownership.requireStatement("b", bobs, "bob"));
    assertRefused("08003", () -> ownership.requireStatement("a", alices, "bob"));
    assertRefused("26000", () -> ownership.requireStatement("b", alices, "bob"));
    // The meta's own ids mean nothing to clients.
    assertRefused("26000", () -> ownership.requireStatement("a", 0, "alice"));
    ownership.removeStatement("b", alices);  // not b's: nothing happens
    assertEquals(0, ownership.requireStatement("a", alices, "alice"));
    ownership.removeStatement("a", alices);
    assertRefused("26000", () -> ownership.requireStatement("a", alices, "alice"));
    ownership.release("b");
    ownership.claim("b", "bob");
    assertRefused("26000", () -> ownership.requireStatement("b", bobs, "bob"));
  }

  /** Connections the meta dropped without a close (idle expiry, capacity) do not pile up. */
  @Test
  void bindingsOfConnectionsTheMetaDroppedAreForgottenOnceTheyOutnumberTheOpenOnes() {
    final Set<String> open = new HashSet<>();
    final int[] statements = new int[100];
    for (int i = 0; i < 100; i++) {
      ownership.claim("gone" + i, "alice");
      statements[i] = ownership.addStatement("gone" + i, i);
    }
    ownership.claim("live", "bob");
    open.add("live");
    // Just opened: kept, they may not have reached the meta yet.
    ownership.forgetDropped(open, ConnectionOwnership.FORGET_AFTER);
    assertEquals(101, ownership.connections());
    ownership.forgetDropped(open, Duration.ZERO);
    assertEquals(1, ownership.connections());
    assertEquals("bob", ownership.ownerOf("live"));
    assertTrue(ownership.claim("gone0", "bob"), "a dropped id is free again");
    assertRefused("26000", () -> ownership.requireStatement("gone0", statements[0], "bob"));
  }

  /** Consecutive meta ids come out as unrelated positive ids, each distinct. */
  @Test
  void clientStatementIdsAreRandomAndUnique() {
    ownership.claim("a", "alice");
    final Set<Integer> ids = new HashSet<>();
    int previous = -1;
    for (int metaId = 0; metaId < 1000; metaId++) {
      final int id = ownership.addStatement("a", metaId);
      assertTrue(id > 0, "positive: " + id);
      assertTrue(Math.abs((long) id - previous) > 1, "not sequential: " + previous + ", " + id);
      assertTrue(ids.add(id), "unique: " + id);
      assertEquals(metaId, ownership.requireStatement("a", id, "alice"));
      previous = id;
    }
    ownership.release("a");
    assertEquals(0, ownership.connections());
  }

  /**
   * Every request type must be checked: a request Avatica adds in an upgrade would otherwise reach the
   * meta without an ownership check.
   */
  @Test
  void everyServiceRequestIsOverridden() throws NoSuchMethodException {
    final List<String> unchecked = new ArrayList<>();
    for (Method method : Service.class.getMethods()) {
      if (method.getName().equals("apply")) {
        final Method declared = OwnershipCheckingService.class
            .getMethod("apply", method.getParameterTypes());
        if (declared.getDeclaringClass() != OwnershipCheckingService.class) {
          unchecked.add(method.getParameterTypes()[0].getSimpleName());
        }
      }
    }
    assertEquals(List.of(), unchecked);
  }

  private static void assertRefused(String sqlState, Runnable call) {
    final AvaticaRuntimeException e = assertThrows(AvaticaRuntimeException.class, call::run);
    assertEquals(sqlState, e.getSqlState(), e.getErrorMessage());
  }
}
