package org.spillway.gpu.join;

/** An equi-join on the CPU over primitive key columns; close it to stop its worker threads. */
public interface CpuJoin extends AutoCloseable {
  /**
   * Joins build side R with probe side S on key equality. For AGGREGATED output both sides need payloads;
   * row counts are limited to Java array sizes.
   */
  JoinResult join(JoinInput build, JoinInput probe, JoinType type, JoinOutput output);

  /** Short name for reports, e.g. {@code nopa} or {@code radix}. */
  String name();

  @Override
  void close();
}
