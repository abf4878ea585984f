package org.spillway.adapter;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The equi-join algorithms Spillway runs, as the {@code joinAlgorithm} connection property names them: AUTO lets
 * the cost model choose; the others force one (a forced GPU algorithm that cannot run falls back to the CPU
 * with the reason in EXPLAIN).
 */
public enum SpillwayJoinAlgorithm {
  AUTO("auto", false),
  /** {@code CpuNopaHashJoin}: one shared table (perfect hash for dense unique keys, else linear probing). */
  CPU_NOPA("cpu-nopa", false),
  /** {@code CpuRadixJoin}: both sides radix-partitioned so that each build partition fits the cache. */
  CPU_RADIX("cpu-radix", false),
  /** NopaHashJoin on the GPU (Lutz et al.): the table in GPU, hybrid or host memory, both sides streamed. */
  NOPA("nopa", true),
  /** TritonJoin on the GPU (Lutz et al. 2022): GPU radix partitioning over the link, partitions cached in GPU memory. */
  TRITON("triton", true),
  /**
   * The windowed index nested-loop join on the CPU (Schmeißer, Lutz and Markl): the probe side's keys looked up in
   * an index over the other side, a base table whose join key has one (CREATE INDEX); that side is not scanned.
   */
  INLJ("inlj", false),
  /** The windowed index nested-loop join on the GPU, reading the index in pinned host memory over the link. */
  GPU_INLJ("gpu-inlj", true);

  private final String label;
  private final boolean gpu;

  SpillwayJoinAlgorithm(String label, boolean gpu) {
    this.label = label;
    this.gpu = gpu;
  }

  /** Whether the algorithm joins through an index (the windowed index nested-loop join, on either device). */
  public boolean indexed() {
    return this == INLJ || this == GPU_INLJ;
  }

  /** Whether the algorithm runs on the GPU. */
  public boolean gpu() {
    return gpu;
  }

  /** The algorithm named by a connection property value (case-insensitive); a bad value says what is allowed. */
  public static SpillwayJoinAlgorithm parse(String value) {
    return Arrays.stream(values()).filter(a -> a.label.equalsIgnoreCase(value.trim())).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("joinAlgorithm '" + value + "' is not one of "
            + Arrays.stream(values()).map(a -> a.label).collect(Collectors.joining(", "))));
  }

  @Override public String toString() {
    return label;
  }
}
