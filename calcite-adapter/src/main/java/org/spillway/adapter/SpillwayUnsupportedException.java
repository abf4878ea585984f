package org.spillway.adapter;

/** Signals that an expression, type or operator cannot run in the Spillway convention; the message says why. */
public final class SpillwayUnsupportedException extends Exception {
  public SpillwayUnsupportedException(String reason) {
    super(reason, null, false, false);
  }
}
