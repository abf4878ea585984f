package org.spillway.gpu.join.nopa;

/**
 * What the key-statistics pass over a join's build side found: minimum and maximum of the non-NULL keys, how
 * many rows have a non-NULL key and how many of those have the key -1 (the empty-slot marker of the hash
 * tables, kept in a side list). They choose and size the table, as {@link CpuNopaHashJoin}'s key range does.
 */
record BuildKeyStats(long min, long max, long rows, long minusOnes) {
  /** Statistics of a build side without a non-NULL key. */
  static final BuildKeyStats EMPTY = new BuildKeyStats(Long.MAX_VALUE, Long.MIN_VALUE, 0, 0);

  /**
   * Whether NOPA's array table may serve: the keys are dense ({@link PerfectHashTable#MAX_RANGE_PER_ROW}, the
   * CPU join's rule) and -1 occurs at most once. Uniqueness of the other keys is checked while building.
   */
  boolean denseEnoughForPerfectHashing() {
    if (rows == 0 || max < min || minusOnes > 1) {
      return false;
    }
    long range = max - min + 1;
    // A range that overflows went negative or to zero: far too sparse.
    return range > 0 && range <= PerfectHashTable.MAX_RANGE_PER_ROW * rows;
  }

  /** Slots of the array table: one per key in [min, max]. */
  long perfectSlots() {
    return max - min + 1;
  }
}
