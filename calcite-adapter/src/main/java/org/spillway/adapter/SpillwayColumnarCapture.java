package org.spillway.adapter;

import org.apache.calcite.avatica.Meta;
import org.apache.calcite.jdbc.CalcitePrepare.CalciteSignature;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.runtime.Bindable;

import java.util.Optional;

/**
 * Hands a client that takes columns the {@link SpillwayColumnarResult} of the statement it executes on this
 * thread: between {@link #start} and {@link #close}, a query whose rows come straight from a Spillway node
 * (the enumerable its signature binds to is that node's) offers it here as it executes. A plan with a Calcite
 * operator on top (or a row limit) binds to another enumerable and offers nothing: its rows are Calcite's.
 */
public final class SpillwayColumnarCapture implements AutoCloseable {
  private static final ThreadLocal<SpillwayColumnarCapture> ACTIVE = new ThreadLocal<>();

  private SpillwayColumnarResult result;

  private SpillwayColumnarCapture() {}

  /** Starts capturing on this thread; {@link #close} stops it. */
  public static SpillwayColumnarCapture start() {
    SpillwayColumnarCapture capture = new SpillwayColumnarCapture();
    ACTIVE.set(capture);
    return capture;
  }

  /** The columns of the statement executed since {@link #start}, if its plan has a Spillway node on top. */
  public Optional<SpillwayColumnarResult> result() {
    return Optional.ofNullable(result);
  }

  @Override public void close() {
    if (ACTIVE.get() == this) {
      ACTIVE.remove();
    }
  }

  /** {@code signature}, offering the enumerable it binds to when that is a Spillway node's columns. */
  static <T> CalciteSignature<T> offering(CalciteSignature<T> signature) {
    if (signature.statementType != Meta.StatementType.SELECT) {
      return signature;
    }
    Bindable<T> bindable = dataContext -> {
      Enumerable<T> enumerable = signature.enumerable(dataContext);
      SpillwayColumnarCapture capture = ACTIVE.get();
      if (capture != null && enumerable instanceof SpillwayColumnarResult columns) {
        capture.result = columns;
      }
      return enumerable;
    };
    // maxRowCount -1: the wrapped signature applies the statement's limit (and then binds to no Spillway node).
    return new CalciteSignature<>(signature.sql, signature.parameters, signature.internalParameters,
        signature.rowType, signature.columns, signature.cursorFactory, signature.rootSchema,
        signature.getCollationList(), -1, bindable, signature.statementType);
  }
}
