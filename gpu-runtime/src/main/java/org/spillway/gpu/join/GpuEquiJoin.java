package org.spillway.gpu.join;

import java.util.function.BooleanSupplier;

/**
 * An equi-join that runs on the GPU over columns in pinned host memory (NopaHashJoin, TritonJoin), with the
 * semantics of the CPU joins ({@link JoinType}, {@link JoinOutput}, {@link JoinResult}) so that their results
 * can be compared row for row. It releases every device and pinned buffer it took before {@link #join}
 * returns or throws; close releases what it keeps between joins (modules, streams).
 */
public interface GpuEquiJoin extends AutoCloseable {
  /**
   * Joins build side R with probe side S on key equality. MATERIALIZED output is limited to 2^31 - 1 rows
   * (row ids are ints); AGGREGATED output needs payloads on both sides. Fails fast when {@code cancelled}
   * turns true between chunks.
   */
  JoinResult join(HostJoinInput build, HostJoinInput probe, JoinType type, JoinOutput output,
      BooleanSupplier cancelled);

  /** Joins without cancellation. */
  default JoinResult join(HostJoinInput build, HostJoinInput probe, JoinType type, JoinOutput output) {
    return join(build, probe, type, output, () -> false);
  }

  /** Short name for reports and EXPLAIN, e.g. {@code nopa} or {@code triton}. */
  String name();

  /** What the last join did: variant, phases and bytes over the link; null before the first join. */
  GpuJoinStats lastStats();

  @Override
  void close();
}
