package org.spillway.gpu.join.nopa;

/**
 * Where a GPU join's hash table lives (Lutz et al., "Pump Up the Volume", Secs. 5.2 and 5.3): in GPU memory, in
 * pinned host memory that the GPU reads and writes over the interconnect, or split between the two.
 */
public enum HashTablePlacement {
  /** All in device memory: random accesses stay on the GPU (the fast case, capacity-bound). */
  GPU,
  /** All in mapped pinned host memory, probed by the GPU over the link (zero-copy random access). */
  HOST,
  /**
   * The hybrid table: one logical array whose first part is in device memory and the rest in mapped pinned host
   * memory, so throughput degrades with the share that spills instead of falling off a cliff.
   */
  HYBRID;

  /** The lower-case name used in variants and reports, e.g. {@code hybrid}. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
