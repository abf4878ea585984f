package org.spillway.gpu.aggregate;

import java.util.Arrays;

/**
 * Direct addressing of one integer group key (the "perfect hash" of dense keys; DuckDB's perfect hash aggregate):
 * an array whose entry {@code key - base} holds the key's group + 1 (0 = not seen), so finding a group is one array
 * read, with no hashing, no compare and no probing. The array covers the range of the keys seen so far and grows
 * geometrically to take keys outside it, as long as the keys stay dense: at most {@link #SPAN_PER_GROUP} entries per
 * group, so that it takes at most half the memory of the hash table slots it replaces, and at most {@link #MAX_SPAN}.
 * Keys clustered in input order but split over several workers (each sees every few morsels) are that sparse in
 * each worker's table early on, so such tables move to hashing while they are small.
 */
final class KeyDirectory {
  /** Entries (ints) allowed per group: a hash table's slots take at least 32 bytes per group. */
  static final long SPAN_PER_GROUP = 4;
  /** The largest directory (32 MiB of ints). */
  static final long MAX_SPAN = 1 << 23;

  private long base;
  private int[] entries = new int[0];
  /**
   * The range of the keys asked to be covered since the last {@link #clear} (empty: lowest above highest). Only
   * they can have groups; the rest of the covered range is room grown ahead, which the density limit does not
   * count, so that growing toward one side never refuses keys whose own range fits.
   */
  private long lowestKey = Long.MAX_VALUE;
  private long highestKey = Long.MIN_VALUE;

  /**
   * Extends the directory to keys {@code min .. max} if they fit it with at most {@code groupsBound} groups; false
   * (and no change) when they do not, as the keys are too sparse or too far apart.
   */
  boolean cover(long min, long max, long groupsBound) {
    if (covers(min) && covers(max)) {
      lowestKey = Math.min(lowestKey, min);
      highestKey = Math.max(highestKey, max);
      return true;
    }
    long low = Math.min(min, lowestKey);
    long high = Math.max(max, highestKey);
    long span = high - low + 1;
    long limit = Math.min(MAX_SPAN, SPAN_PER_GROUP * Math.max(groupsBound, 1));
    if (span <= 0 || span > limit) {
      return false;  // span <= 0: the range overflows a long
    }
    int length = (int) Math.min(limit, Math.max(span, 2L * entries.length));
    long extra = length - span;
    // grow toward the side the new keys came from, so that keys moving on in one direction rarely grow it again
    long newBase = entries.length > 0 && low < base ? low - extra : low;
    if (newBase > low) {
      newBase = low;  // low - extra overflowed
    }
    if (newBase + (length - 1) < newBase) {
      newBase = Long.MAX_VALUE - (length - 1);  // the top would pass the largest long
    }
    int[] grown = new int[length];
    // the keys with groups (lowestKey .. highestKey) lie in both ranges; room grown ahead before may not
    long from = Math.max(base, newBase);
    long to = Math.min(base + entries.length - 1, newBase + (length - 1));
    if (entries.length > 0 && from <= to) {
      System.arraycopy(entries, (int) (from - base), grown, (int) (from - newBase), (int) (to - from + 1));
    }
    entries = grown;
    base = newBase;
    lowestKey = low;
    highestKey = high;
    return true;
  }

  /** The group + 1 of a covered key, 0 if it has none yet. */
  int get(long key) {
    return entries[(int) (key - base)];
  }

  /** Gives a covered key the group {@code group}. */
  void put(long key, int group) {
    entries[(int) (key - base)] = group + 1;
  }

  /** Whether the key lies in the covered range. */
  boolean covers(long key) {
    long offset = key - base;  // negative also where it overflows
    return key >= base && offset >= 0 && offset < entries.length;
  }

  /** The entries, for a caller's inner loop: entry {@code key - base()} is the key's group + 1. */
  int[] entries() {
    return entries;
  }

  long base() {
    return base;
  }

  /** Whether no key was covered yet. */
  boolean isEmpty() {
    return entries.length == 0;
  }

  /** The smallest key asked to be covered since the last {@link #clear}; above {@link #highestKey} if none. */
  long lowestKey() {
    return lowestKey;
  }

  /** The largest key asked to be covered since the last {@link #clear}; every key with a group lies in between. */
  long highestKey() {
    return highestKey;
  }

  /** The smallest covered key (the directory may cover keys that have no group). */
  long low() {
    return base;
  }

  /** The largest covered key. */
  long high() {
    return base + entries.length - 1;
  }

  /** The number of keys {@code from .. to} that have a group. */
  int count(long from, long to) {
    if (isEmpty() || to < base || from > high()) {
      return 0;
    }
    int count = 0;
    for (int e = (int) (Math.max(from, base) - base), last = (int) (Math.min(to, high()) - base); e <= last; e++) {
      count += entries[e] != 0 ? 1 : 0;
    }
    return count;
  }

  /** The groups of the keys {@code from .. to} that have one, in key order. */
  int[] groups(long from, long to) {
    int count = count(from, to);
    if (count == 0) {
      return new int[0];
    }
    int first = (int) (Math.max(from, base) - base);
    int last = (int) (Math.min(to, high()) - base);
    int[] out = new int[count];
    for (int e = first, i = 0; e <= last; e++) {
      if (entries[e] != 0) {
        out[i++] = entries[e] - 1;
      }
    }
    return out;
  }

  /** Forgets every key's group, keeping the covered range and its memory. */
  void clear() {
    Arrays.fill(entries, 0);
    lowestKey = Long.MAX_VALUE;
    highestKey = Long.MIN_VALUE;
  }
}
