package org.spillway.gpu.join;

/** A hash table built over the join's build side, probed one key at a time. */
public interface BuildTable {
  /**
   * Looks {@code key} up and returns how many build rows match. Unless {@code existenceOnly} (then it stops at
   * the first match and emits nothing), every match goes to {@code sink} as a pair with {@code probeValue}.
   */
  int probe(long key, long probeValue, JoinSink sink, boolean existenceOnly);

  /**
   * Reads the table word where {@code key}'s probe starts and returns it; touching a group of keys' words
   * before probing them lets their cache misses overlap (group prefetching, Chen et al., ICDE 2004).
   */
  long touch(long key);
}
