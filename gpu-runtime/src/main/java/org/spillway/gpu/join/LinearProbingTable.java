package org.spillway.gpu.join;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Open addressing with linear probing and multiply-shift hashing (Dietzfelbinger), load factor at most 50%,
 * 16-byte {key, value} entries in one array as in Pump Up the Volume's NOPA table; duplicate build keys
 * occupy separate slots and a probe runs on past a match until an empty slot.
 *
 * <p>The empty slot is marked by the key -1, as on the GPU; build rows whose key really is -1 go to a side
 * list instead, so -1 still joins like any other key here.
 */
public final class LinearProbingTable implements BuildTable {
  /** Golden-ratio multiplier of multiply-shift hashing. */
  public static final long MULTIPLIER = 0x9E3779B97F4A7C15L;
  static final long EMPTY = -1L;
  private static final VarHandle ENTRY = MethodHandles.arrayElementVarHandle(long[].class);
  private static final int MAX_LOG_SLOTS = 29;

  private final int ignoredHashBits;
  private long[] entries = new long[0];
  private int logSlots;
  private int slotMask;
  private long[] emptyKeyValues = new long[4];
  private int emptyKeyCount;

  /**
   * A table whose slot comes from the hash bits below the top {@code ignoredHashBits}, which radix
   * partitioning already used (all keys of one partition share them).
   */
  public LinearProbingTable(int ignoredHashBits) {
    this.ignoredHashBits = ignoredHashBits;
  }

  /** Empties the table and sizes it for {@code buildRows} rows: 2 x next power of two slots. */
  public void reset(long buildRows) {
    int log = buildRows <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(buildRows - 1);
    if (log + 1 > MAX_LOG_SLOTS) {
      throw new IllegalArgumentException("build side of " + buildRows + " rows exceeds the linear probing "
          + "table's limit of " + (1L << (MAX_LOG_SLOTS - 1)) + " rows");
    }
    logSlots = log + 1;
    slotMask = (1 << logSlots) - 1;
    int words = 2 << logSlots;
    if (entries.length < words) {
      entries = new long[words];
    }
    Arrays.fill(entries, 0, words, EMPTY);
    emptyKeyCount = 0;
  }

  private int slot(long key) {
    return (int) (((key * MULTIPLIER) << ignoredHashBits) >>> (64 - logSlots));
  }

  /** Inserts from one thread. */
  public void insert(long key, long value) {
    if (key == EMPTY) {
      addEmptyKeyValue(value);
      return;
    }
    int s = slot(key);
    while (entries[2 * s] != EMPTY) {
      s = (s + 1) & slotMask;
    }
    entries[2 * s] = key;
    entries[2 * s + 1] = value;
  }

  /**
   * Inserts while other threads insert too: a CAS claims the key word, then a plain store writes the value
   * (no reader runs before the build barrier).
   */
  public void insertConcurrent(long key, long value) {
    if (key == EMPTY) {
      synchronized (this) {
        addEmptyKeyValue(value);
      }
      return;
    }
    int s = slot(key);
    while (entries[2 * s] != EMPTY || !ENTRY.compareAndSet(entries, 2 * s, EMPTY, key)) {
      s = (s + 1) & slotMask;
    }
    entries[2 * s + 1] = value;
  }

  private void addEmptyKeyValue(long value) {
    if (emptyKeyCount == emptyKeyValues.length) {
      emptyKeyValues = Arrays.copyOf(emptyKeyValues, emptyKeyCount * 2);
    }
    emptyKeyValues[emptyKeyCount++] = value;
  }

  @Override
  public int probe(long key, long probeValue, JoinSink sink, boolean existenceOnly) {
    if (key == EMPTY) {
      return probeEmptyKey(probeValue, sink, existenceOnly);
    }
    int s = slot(key);
    int matches = 0;
    long k;
    while ((k = entries[2 * s]) != EMPTY) {
      if (k == key) {
        if (existenceOnly) {
          return 1;
        }
        matches++;
        sink.pair(entries[2 * s + 1], probeValue);
      }
      s = (s + 1) & slotMask;
    }
    return matches;
  }

  @Override
  public long touch(long key) {
    return entries[2 * slot(key)];
  }

  private int probeEmptyKey(long probeValue, JoinSink sink, boolean existenceOnly) {
    if (existenceOnly) {
      return Math.min(emptyKeyCount, 1);
    }
    for (int i = 0; i < emptyKeyCount; i++) {
      sink.pair(emptyKeyValues[i], probeValue);
    }
    return emptyKeyCount;
  }
}
