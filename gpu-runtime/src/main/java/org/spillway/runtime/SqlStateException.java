package org.spillway.runtime;

/**
 * An exception that knows its SQLSTATE (e.g. "53200" for a query that would exhaust memory). Any Spillway
 * exception implementing it reaches JDBC clients with that code, without the JDBC layer knowing its type.
 */
public interface SqlStateException {
  /** The five-character SQLSTATE; its first two characters are the class (53: insufficient resources). */
  String getSqlState();
}
