package org.spillway.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit extension that injects the shared {@link TpchDataSet} into test methods and lifecycle methods: it is
 * generated once per test run, on first use, and closed by JUnit when the run ends.
 */
public final class TpchDataExtension implements ParameterResolver {
  @Override public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TpchDataSet.class;
  }

  @Override public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    // The root context's store lives for the whole run and closes AutoCloseable values at its end.
    ExtensionContext.Store store = context.getRoot().getStore(ExtensionContext.Namespace.create(getClass()));
    return store.getOrComputeIfAbsent(TpchDataSet.class, key -> createDataSet(), TpchDataSet.class);
  }

  private static TpchDataSet createDataSet() {
    try {
      return TpchDataSet.create(TpchDataSet.SCALE_FACTOR);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the TPC-H test data set", e);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot load the TPC-H test data set into DuckDB: " + e.getMessage(), e);
    }
  }
}
