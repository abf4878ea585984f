package org.spillway.storage;

/**
 * The arrays a {@link ColumnStatisticsCollector} observes a batch's values in, shared by the collectors of a thread
 * (a thread observes one column at a time): a collector is made per batch and column, and arrays of its own were new
 * for every batch; a text column's bytes are megabytes, which the JVM allocates outside the thread's buffers, clears
 * and collects (lineitem's comments: 180 MB an SF 1 import, each array a humongous G1 allocation, which can start a
 * concurrent cycle after which the heap shrinks and grows again, page faults included). Arrays of up to
 * {@link #KEPT_BYTES} bytes stay with the thread (a batch of up to 131,072 rows needs 1 MB of hashes or order keys, and
 * its text: 3.7 MB of lineitem's comments); a larger one is used once and left to the collector. Writers on
 * long-lived threads (a server's) keep at most four such arrays a thread.
 */
final class StatisticsScratch {
  static final long KEPT_BYTES = 16L << 20;
  private static final ThreadLocal<StatisticsScratch> OF_THREAD = ThreadLocal.withInitial(StatisticsScratch::new);

  private byte[] text = new byte[64];
  private int[] bounds = new int[0];
  private long[] hashes = new long[0];
  private long[] keys = new long[0];
  private long[] hashTable = new long[0];

  private StatisticsScratch() {}

  static StatisticsScratch ofThread() {
    return OF_THREAD.get();
  }

  /** An array of at least {@code bytes} bytes, for a batch's text. */
  byte[] text(int bytes) {
    if (text.length >= bytes) {
      return text;
    }
    byte[] grown = new byte[(int) Math.max(bytes, Math.min(Integer.MAX_VALUE - 8, 2L * text.length))];
    if (grown.length <= KEPT_BYTES) {
      text = grown;
    }
    return grown;
  }

  /** An array of at least {@code count} ints, for text bounds. */
  int[] bounds(int count) {
    if (bounds.length >= count) {
      return bounds;
    }
    int[] grown = new int[count];
    if ((long) count * Integer.BYTES <= KEPT_BYTES) {
      bounds = grown;
    }
    return grown;
  }

  /** An array of at least {@code count} longs, for text hashes. */
  long[] hashes(int count) {
    if (hashes.length >= count) {
      return hashes;
    }
    long[] grown = new long[count];
    if ((long) count * Long.BYTES <= KEPT_BYTES) {
      hashes = grown;
    }
    return grown;
  }

  /** An array of at least {@code count} longs, for order keys. */
  long[] keys(int count) {
    if (keys.length >= count) {
      return keys;
    }
    long[] grown = new long[count];
    if ((long) count * Long.BYTES <= KEPT_BYTES) {
      keys = grown;
    }
    return grown;
  }

  /** An array of at least {@code count} longs, for a table of distinct hashes ({@link DistinctHashes}). */
  long[] hashTable(int count) {
    if (hashTable.length >= count) {
      return hashTable;
    }
    long[] grown = new long[count];
    if ((long) count * Long.BYTES <= KEPT_BYTES) {
      hashTable = grown;
    }
    return grown;
  }
}
