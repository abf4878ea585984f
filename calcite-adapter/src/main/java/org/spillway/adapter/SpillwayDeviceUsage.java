package org.spillway.adapter;

import org.spillway.gpu.plan.DeviceRuns;

import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.schema.SchemaPlus;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts where the pipelines of one connection ran, so that a server can log the device of each query: a
 * query's device is what ran between a {@link #mark()} taken at its start and its end.
 */
public final class SpillwayDeviceUsage implements DeviceRuns {
  private final AtomicLong gpuRuns = new AtomicLong();
  private final AtomicLong cpuRuns = new AtomicLong();

  @Override public void record(boolean onGpu) {
    (onGpu ? gpuRuns : cpuRuns).incrementAndGet();
  }

  /** The counts now. */
  public Mark mark() {
    return new Mark(gpuRuns.get(), cpuRuns.get());
  }

  /** "gpu", "cpu", "gpu+cpu", or "cpu" when no Spillway pipeline ran (Calcite's enumerable code did the work). */
  public String since(Mark start) {
    boolean gpu = gpuRuns.get() > start.gpu();
    boolean cpu = cpuRuns.get() > start.cpu();
    return gpu && cpu ? "gpu+cpu" : gpu ? "gpu" : "cpu";
  }

  /** Counts at one moment. */
  public record Mark(long gpu, long cpu) {}

  /** The usage of a Spillway connection's default schema, if the connection is one. */
  public static Optional<SpillwayDeviceUsage> of(Connection connection) throws SQLException {
    if (!connection.isWrapperFor(CalciteConnection.class)) {
      return Optional.empty();
    }
    CalciteConnection calcite = connection.unwrap(CalciteConnection.class);
    String schemaName = calcite.getSchema();
    SchemaPlus schema = schemaName == null ? null : calcite.getRootSchema().subSchemas().get(schemaName);
    if (schema == null) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(schema.unwrap(SpillwaySchema.class)).map(SpillwaySchema::deviceUsage);
    } catch (ClassCastException notSpillway) {
      return Optional.empty();  // Calcite's unwrap throws rather than answering null
    }
  }
}
