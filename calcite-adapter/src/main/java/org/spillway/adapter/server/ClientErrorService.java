package org.spillway.adapter.server;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.calcite.avatica.AvaticaSeverity;
import org.apache.calcite.avatica.NoSuchConnectionException;
import org.apache.calcite.avatica.remote.AvaticaRuntimeException;
import org.apache.calcite.avatica.remote.Service;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.spillway.adapter.jdbc.SpillwaySqlErrors;

/**
 * The Avatica service as remote clients see its failures: every error becomes an
 * {@link AvaticaRuntimeException} with the SQLSTATE {@link SpillwaySqlErrors} gives it (Avatica answers
 * anything else with SQLSTATE 00000), a message that ends with a log id, and no stack trace (Avatica sends the
 * stack traces of the exception and its causes in every ErrorResponse). The server logs the full failure under
 * that id.
 */
final class ClientErrorService {
  private static final Logger LOG = LoggerFactory.getLogger(ClientErrorService.class);

  private ClientErrorService() {}

  /** {@code service} with its failures mapped for clients. */
  static Service wrap(Service service) {
    return (Service) Proxy.newProxyInstance(Service.class.getClassLoader(), new Class<?>[] {Service.class},
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return method.invoke(service, args);
          }
          try {
            return method.invoke(service, args);
          } catch (InvocationTargetException e) {
            throw forClient(e.getCause());
          }
        });
  }

  /** The exception Avatica turns into the client's ErrorResponse. */
  static RuntimeException forClient(Throwable error) {
    if (error instanceof NoSuchConnectionException missing) {
      return missing;  // Avatica's client reconnects on this one; it carries no server internals
    }
    final String logId = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffffL);
    final String sqlState;
    final String message;
    final int errorCode;
    if (error instanceof AvaticaRuntimeException avatica && SpillwaySqlErrors.isSpecific(avatica.getSqlState())) {
      sqlState = avatica.getSqlState();
      message = avatica.getErrorMessage();
      errorCode = avatica.getErrorCode();
    } else {
      final SpillwaySqlErrors.Classified classified = SpillwaySqlErrors.classify(error);
      sqlState = classified.sqlState();
      message = classified.message();
      errorCode = 0;
    }
    if (isClientError(sqlState)) {
      LOG.info("[{}] statement failed with SQLSTATE {}: {}", logId, sqlState, message);
      LOG.debug("[{}] failure in full", logId, error);
    } else {
      LOG.error("[{}] statement failed with SQLSTATE {}: {}", logId, sqlState, message, error);
    }
    final AvaticaRuntimeException forClient = new AvaticaRuntimeException(
        message + " [server log id " + logId + "]", errorCode, sqlState, AvaticaSeverity.ERROR);
    forClient.setStackTrace(new StackTraceElement[0]);
    return forClient;
  }

  /**
   * Failures the client caused or asked for (bad SQL or data, read-only, cancel, busy, a statement too long or
   * complex): no stack to log.
   */
  private static boolean isClientError(String sqlState) {
    final String sqlClass = sqlState.substring(0, 2);
    return sqlClass.equals("42") || sqlClass.equals("22") || sqlClass.equals("25") || sqlClass.equals("57")
        || sqlClass.equals("08") || sqlClass.equals("0A") || sqlClass.equals("54") || sqlState.equals("53300");
  }
}
