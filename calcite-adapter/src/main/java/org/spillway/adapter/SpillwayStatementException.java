package org.spillway.adapter;

import org.spillway.runtime.SqlStateException;

/** A failed statement that Spillway runs itself (DDL Calcite's parser does not know), with its SQLSTATE. */
final class SpillwayStatementException extends RuntimeException implements SqlStateException {
  private final String sqlState;

  SpillwayStatementException(String sqlState, String message) {
    this(sqlState, message, null);
  }

  SpillwayStatementException(String sqlState, String message, Throwable cause) {
    super(message, cause);
    this.sqlState = sqlState;
  }

  @Override public String getSqlState() {
    return sqlState;
  }
}
