package org.spillway.adapter.server;

import java.sql.SQLException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.spillway.adapter.jdbc.SpillwaySqlErrors;

/**
 * Turns a failed statement into the Flight status a Flight SQL client understands, keeping Spillway's message
 * and SQLSTATE (the same ones the Avatica server sends) in the description.
 */
final class FlightSqlErrors {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlErrors.class);

  private FlightSqlErrors() {}

  /** {@code error} as a Flight status; internal errors are logged with their stack trace. */
  static FlightRuntimeException toFlight(Throwable error) {
    if (error instanceof FlightRuntimeException flight) {
      return flight;
    }
    final SQLException sql = SpillwaySqlErrors.toSqlException(error);
    final CallStatus status = status(sql.getSQLState());
    if (status == CallStatus.INTERNAL) {
      LOG.error("internal error in a Flight SQL call", error);
    }
    return status.withDescription(describe(sql.getSQLState(), sql.getMessage())).withCause(error)
        .toRuntimeException();
  }

  /** Spillway's message with its SQLSTATE, as every status of this endpoint describes a failure. */
  static String describe(String sqlState, String message) {
    return message + " [SQLSTATE " + sqlState + "]";
  }

  /** The Flight status of an SQLSTATE's class. */
  static CallStatus status(String sqlState) {
    if (StatementClassifier.READ_ONLY_SQLSTATE.equals(sqlState)) {
      return CallStatus.UNAUTHORIZED;
    }
    if (AdmissionControl.BUSY_SQLSTATE.equals(sqlState) || SpillwaySqlErrors.OUT_OF_MEMORY.equals(sqlState)) {
      return CallStatus.RESOURCE_EXHAUSTED;
    }
    if (SpillwaySqlErrors.QUERY_CANCELED.equals(sqlState)) {
      return CallStatus.CANCELLED;
    }
    if (SpillwaySqlErrors.INVALID_STATEMENT_NAME.equals(sqlState)) {
      return CallStatus.NOT_FOUND;
    }
    if (SpillwaySqlErrors.FEATURE_NOT_SUPPORTED.equals(sqlState)) {
      return CallStatus.UNIMPLEMENTED;
    }
    final String sqlClass = sqlState == null || sqlState.length() < 2 ? "" : sqlState.substring(0, 2);
    switch (sqlClass) {
      case "07": // dynamic SQL: parameters
      case "22": // data exception
      case "42": // syntax or access rule
      case "54": // program limit exceeded
        return CallStatus.INVALID_ARGUMENT;
      default:
        return CallStatus.INTERNAL;
    }
  }
}
