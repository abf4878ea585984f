package org.spillway.adapter.server;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.calcite.avatica.AvaticaSeverity;
import org.apache.calcite.avatica.remote.AvaticaRuntimeException;

/**
 * Which user opened each server connection, and which connection handed out each statement id.
 *
 * <p>Avatica lets the client choose the connection id and numbers statements from 0 across all
 * connections, so an id proves nothing: every request must come from the user that opened its
 * connection and may only name statements of that connection. A connection id stays bound to its
 * user until the connection is closed, or until a while after the meta dropped it (Avatica's meta
 * expires idle connections and evicts the least recently used beyond its capacity without telling
 * anyone), so nobody else can take over a live connection and bindings do not pile up.
 *
 * <p>Clients never see the meta's sequential statement ids: each statement is handed out under a
 * random id, which this class maps back to the meta's id for the connection that owns it.
 */
final class ConnectionOwnership {
  /** SQLSTATE 08003: connection does not exist. */
  static final String NO_CONNECTION_SQLSTATE = "08003";

  /** SQLSTATE 08002: connection name in use. */
  static final String CONNECTION_IN_USE_SQLSTATE = "08002";

  /** SQLSTATE 26000: invalid SQL statement name. */
  static final String NO_STATEMENT_SQLSTATE = "26000";

  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * How long a binding outlives its connection in the meta: longer than any open takes, so that a
   * connection being opened right now (bound, not yet in the meta) is never forgotten.
   */
  static final Duration FORGET_AFTER = Duration.ofMinutes(1);

  /** A statement as the meta knows it: its connection and the meta's own id. */
  private record MetaStatement(String connectionId, int metaId) {}

  /** Who opened a connection, and when (System.nanoTime) they last opened it. */
  private record Owner(String user, long openedAt) {}

  private final Map<String, Owner> owners = new ConcurrentHashMap<>();
  private final Map<Integer, MetaStatement> statements = new ConcurrentHashMap<>();

  /**
   * Binds a new connection id to {@code user}; returns whether the binding is new (false: the same
   * user reopens an id of theirs, as Avatica's client does after the server expired the connection).
   *
   * @throws AvaticaRuntimeException if another user holds the id
   */
  boolean claim(String connectionId, String user) {
    final boolean[] isNew = new boolean[1];
    owners.compute(connectionId, (id, owner) -> {
      if (owner != null && !owner.user.equals(user)) {
        throw refusal("Connection id " + connectionId + " is already in use; a client must choose"
            + " a new, random id", CONNECTION_IN_USE_SQLSTATE);
      }
      isNew[0] = owner == null;
      return new Owner(user, System.nanoTime());
    });
    return isNew[0];
  }

  /**
   * Forgets connections that the meta no longer holds ({@code open} are those it does) and that were
   * opened more than {@code after} ago. Cheap to call on every open: it only scans once the bindings
   * outnumber twice the open connections.
   */
  void forgetDropped(Set<String> open, Duration after) {
    if (owners.size() <= 2 * open.size() + 64) {
      return;
    }
    final long now = System.nanoTime();
    owners.forEach((connectionId, owner) -> {
      if (!open.contains(connectionId) && now - owner.openedAt > after.toNanos()
          && owners.remove(connectionId, owner)) {
        statements.values().removeIf(statement -> statement.connectionId.equals(connectionId));
      }
    });
  }

  /** Forgets a closed connection and the statements it handed out. */
  void release(String connectionId) {
    owners.remove(connectionId);
    statements.values().removeIf(statement -> statement.connectionId.equals(connectionId));
  }

  /** The user that opened {@code connectionId}, or null if no open connection has that id. */
  String ownerOf(String connectionId) {
    final Owner owner = connectionId == null ? null : owners.get(connectionId);
    return owner == null ? null : owner.user;
  }

  /**
   * Refuses {@code user} unless they opened {@code connectionId}. An unknown id and another user's id
   * get the same answer, so the refusal does not tell whether the connection exists.
   */
  void requireOwner(String connectionId, String user) {
    final String owner = ownerOf(connectionId);
    if (owner == null || !owner.equals(user)) {
      throw refusal("Connection " + connectionId + " does not exist (closed, expired or never"
          + " opened by user '" + user + "')", NO_CONNECTION_SQLSTATE);
    }
  }

  /**
   * Records the meta's statement {@code metaId} of {@code connectionId}; returns the random id, a
   * positive int, under which the client gets it.
   */
  int addStatement(String connectionId, int metaId) {
    final MetaStatement statement = new MetaStatement(connectionId, metaId);
    while (true) {
      final int clientId = 1 + RANDOM.nextInt(Integer.MAX_VALUE - 1);
      if (statements.putIfAbsent(clientId, statement) == null) {
        return clientId;
      }
    }
  }

  /** Forgets a closed statement. */
  void removeStatement(String connectionId, int clientId) {
    statements.computeIfPresent(clientId,
        (id, statement) -> statement.connectionId.equals(connectionId) ? null : statement);
  }

  /**
   * Returns the meta's id of the statement the client calls {@code clientId}, after refusing
   * {@code user} unless they own {@code connectionId} and it handed out that statement.
   */
  int requireStatement(String connectionId, int clientId, String user) {
    requireOwner(connectionId, user);
    final MetaStatement statement = statements.get(clientId);
    if (statement == null || !statement.connectionId.equals(connectionId)) {
      throw refusal("Statement " + clientId + " does not exist on connection " + connectionId
          + " (closed, or created on another connection)", NO_STATEMENT_SQLSTATE);
    }
    return statement.metaId;
  }

  /** Open connections; for tests that check nothing is left behind. */
  int connections() {
    return owners.size();
  }

  private static AvaticaRuntimeException refusal(String message, String sqlState) {
    return new AvaticaRuntimeException(message, 0, sqlState, AvaticaSeverity.ERROR);
  }
}
