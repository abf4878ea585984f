package org.spillway.gpu.join;

/** An equi-join over primitive key columns, on the CPU or the GPU; close it to release its threads and memory. */
public interface EquiJoin extends AutoCloseable {
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
