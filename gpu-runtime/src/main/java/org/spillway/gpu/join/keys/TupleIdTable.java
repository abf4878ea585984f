package org.spillway.gpu.join.keys;

import java.util.Arrays;

/**
 * The distinct key tuples of a build side to dense ids 0, 1, 2, ...: an open-addressing (linear probing) table
 * over tuples of longs, one lane array per key column, so that no row is boxed. Inserted into by one thread;
 * looked up from many once built (it is never written again).
 */
final class TupleIdTable {
  private final int width;
  /** Tuple of id {@code i}: {@code tuples[i * width .. i * width + width - 1]}. */
  private long[] tuples;
  /** Id + 1 per slot, 0 for an empty slot. */
  private int[] slots;
  private int mask;
  private int size;

  TupleIdTable(int width, int expectedTuples) {
    this.width = width;
    int capacity = Integer.highestOneBit(Math.max(16, Math.min(expectedTuples, 1 << 20)) * 2 - 1) << 1;
    this.slots = new int[capacity];
    this.mask = capacity - 1;
    this.tuples = new long[Math.max(16, Math.min(expectedTuples, 1 << 20)) * width];
  }

  int size() {
    return size;
  }

  /** The id of row {@code row}'s tuple in {@code lanes}, a new one where it is not in the table yet. */
  int insert(long[][] lanes, int row) {
    long hash = hash(lanes, row);
    for (int s = (int) hash & mask; ; s = (s + 1) & mask) {
      int entry = slots[s];
      if (entry == 0) {
        return add(lanes, row, s);
      }
      if (equal(entry - 1, lanes, row)) {
        return entry - 1;
      }
    }
  }

  /** The id of row {@code row}'s tuple, or -1 where no build row has it. */
  int find(long[][] lanes, int row) {
    long hash = hash(lanes, row);
    for (int s = (int) hash & mask; ; s = (s + 1) & mask) {
      int entry = slots[s];
      if (entry == 0) {
        return -1;
      }
      if (equal(entry - 1, lanes, row)) {
        return entry - 1;
      }
    }
  }

  private int add(long[][] lanes, int row, int slot) {
    int id = size++;
    if ((long) (id + 1) * width > tuples.length) {
      tuples = Arrays.copyOf(tuples, (int) Math.min(Integer.MAX_VALUE - 8, (long) tuples.length * 2));
    }
    for (int c = 0; c < width; c++) {
      tuples[id * width + c] = lanes[c][row];
    }
    slots[slot] = id + 1;
    if (size * 2L > slots.length) {
      grow();
    }
    return id;
  }

  private boolean equal(int id, long[][] lanes, int row) {
    int at = id * width;
    for (int c = 0; c < width; c++) {
      if (tuples[at + c] != lanes[c][row]) {
        return false;
      }
    }
    return true;
  }

  /** Twice the slots, every tuple placed again (the ids stay). */
  private void grow() {
    if (slots.length >= 1 << 30) {
      throw new IllegalStateException("more than " + (1 << 29) + " distinct join key tuples");
    }
    int[] grown = new int[slots.length * 2];
    int grownMask = grown.length - 1;
    for (int id = 0; id < size; id++) {
      long h = 0x2545F4914F6CDD1DL;
      for (int c = 0; c < width; c++) {
        h = mix(h, tuples[id * width + c]);
      }
      int s = (int) finish(h) & grownMask;
      while (grown[s] != 0) {
        s = (s + 1) & grownMask;
      }
      grown[s] = id + 1;
    }
    slots = grown;
    mask = grownMask;
  }

  private long hash(long[][] lanes, int row) {
    long h = 0x2545F4914F6CDD1DL;
    for (int c = 0; c < width; c++) {
      h = mix(h, lanes[c][row]);
    }
    return finish(h);
  }

  private static long mix(long h, long value) {
    return (h ^ value) * 0x9E3779B97F4A7C15L;
  }

  /** MurmurHash3's 64-bit finalizer: every input bit reaches the low bits that pick the slot. */
  private static long finish(long h) {
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    return h ^ h >>> 33;
  }
}
