package org.spillway.adapter;

import org.apache.calcite.jdbc.CalcitePrepare.CalciteSignature;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.runtime.Bindable;

/**
 * A cached signature that leaves the plan cache when its generated code cannot be initialized. Calcite's code
 * generator hoists constant expressions into static fields, so {@code SELECT 1/0} fails in a static initializer:
 * the first run gets the {@link ExceptionInInitializerError} (and its division by zero), but the class then stays
 * unusable and every later run of the cached plan would get a {@link NoClassDefFoundError} instead.
 */
final class SpillwayEvictingSignature {
  private SpillwayEvictingSignature() {}

  /** {@code signature}, calling {@code evict} when a run fails with a {@link LinkageError}. */
  static <T> CalciteSignature<T> of(CalciteSignature<T> signature, Runnable evict) {
    Bindable<T> bindable = dataContext -> {
      try {
        return evictOnFailure(signature.enumerable(dataContext), evict);
      } catch (LinkageError e) {
        evict.run();
        throw e;
      }
    };
    // maxRowCount -1: the wrapped signature already applies the statement's limit.
    return new CalciteSignature<>(signature.sql, signature.parameters, signature.internalParameters,
        signature.rowType, signature.columns, signature.cursorFactory, signature.rootSchema,
        signature.getCollationList(), -1, bindable, signature.statementType);
  }

  private static <T> Enumerable<T> evictOnFailure(Enumerable<T> enumerable, Runnable evict) {
    return new AbstractEnumerable<>() {
      @Override public Enumerator<T> enumerator() {
        try {
          return evictOnFailure(enumerable.enumerator(), evict);
        } catch (LinkageError e) {
          evict.run();
          throw e;
        }
      }
    };
  }

  private static <T> Enumerator<T> evictOnFailure(Enumerator<T> enumerator, Runnable evict) {
    return new Enumerator<>() {
      @Override public T current() {
        return enumerator.current();
      }

      @Override public boolean moveNext() {
        try {
          return enumerator.moveNext();
        } catch (LinkageError e) {
          evict.run();
          throw e;
        }
      }

      @Override public void reset() {
        enumerator.reset();
      }

      @Override public void close() {
        enumerator.close();
      }
    };
  }
}
