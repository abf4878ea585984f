package org.spillway.gpu.exec;

import org.spillway.gpu.vector.ColumnVector;
import java.util.Arrays;

/**
 * Open-addressing hash table (linear probing) from a group key to a dense group number. A key is a fixed
 * number of long words: one per key column (doubles by their bits) plus a word of null flags.
 */
final class GroupTable {
  /** Largest cross product of key ranges that the dense fast path caches (ints, so 256 KiB). */
  private static final long MAX_DENSE = 1 << 16;

  private final int width;
  private long[] keys;
  private int[] hashes;
  private int[] slots;  // group + 1, 0 = empty
  private int groups;

  GroupTable(int keyColumns) {
    this.width = keyColumns + 1;
    this.keys = new long[16 * width];
    this.hashes = new int[16];
    this.slots = new int[64];
  }

  int size() {
    return groups;
  }

  /** The hash of a group's key (the table's own, so partitioning a table's groups needs no rehashing). */
  int hash(int group) {
    return hashes[group];
  }

  /** Word {@code w} of the key of a group (w = key column, or the key column count for the null flags). */
  long keyWord(int group, int w) {
    return keys[group * width + w];
  }

  /** The group numbers of the rows of the key vectors, inserting keys not seen before. */
  void findOrInsert(ColumnVector[] keyColumns, int n, int[] groupOut) {
    if (!findDense(keyColumns, n, groupOut)) {
      long[] word = new long[width];
      for (int i = 0; i < n; i++) {
        groupOut[i] = findOrInsert(keyWord(keyColumns, i, word));
      }
    }
  }

  /**
   * Fast path for keys with few distinct values in a morsel (dictionary codes, flags, small integers): the
   * key's position in the cross product of the per-column value ranges indexes a small array that caches
   * its group, so the hash table is probed once per distinct key instead of once per row.
   */
  private boolean findDense(ColumnVector[] keyColumns, int n, int[] groupOut) {
    int k = keyColumns.length;
    long[] mins = new long[k];
    long[] strides = new long[k];
    long[] nullSlots = new long[k];
    long product = 1;
    for (int c = 0; c < k; c++) {
      ColumnVector col = keyColumns[c];
      if (col.longs == null) {
        return false;
      }
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        if (!col.isNull(i)) {
          min = Math.min(min, col.longs[i]);
          max = Math.max(max, col.longs[i]);
        }
      }
      if (min > max) {
        min = max = 0;
      }
      if (max - min > MAX_DENSE || max - min < 0) {
        return false;
      }
      long span = max - min + 2;  // one more slot for NULL
      mins[c] = min;
      nullSlots[c] = span - 1;
      strides[c] = product;
      product *= span;
      if (product > MAX_DENSE) {
        return false;
      }
    }
    int[] cache = new int[(int) product];
    java.util.Arrays.fill(cache, -1);
    long[] word = new long[width];
    for (int i = 0; i < n; i++) {
      long index = 0;
      for (int c = 0; c < k; c++) {
        ColumnVector col = keyColumns[c];
        index += (col.isNull(i) ? nullSlots[c] : col.longs[i] - mins[c]) * strides[c];
      }
      int g = cache[(int) index];
      if (g < 0) {
        g = findOrInsert(keyWord(keyColumns, i, word));
        cache[(int) index] = g;
      }
      groupOut[i] = g;
    }
    return true;
  }

  private long[] keyWord(ColumnVector[] keyColumns, int i, long[] word) {
    long nullFlags = 0;
    for (int k = 0; k < keyColumns.length; k++) {
      ColumnVector c = keyColumns[k];
      if (c.isNull(i)) {
        nullFlags |= 1L << k;
        word[k] = 0;
      } else {
        word[k] = c.longs != null ? c.longs[i] : Double.doubleToLongBits(c.doubles[i] + 0.0);
      }
    }
    word[width - 1] = nullFlags;
    return word;
  }

  /** The group of one key (width words), inserting it if new. */
  int findOrInsert(long[] word) {
    int h = hash(word);
    int mask = slots.length - 1;
    for (int s = h & mask; ; s = (s + 1) & mask) {
      int g = slots[s] - 1;
      if (g < 0) {
        return insert(word, h, s);
      }
      if (hashes[g] == h && sameKey(g, word)) {
        return g;
      }
    }
  }

  private boolean sameKey(int group, long[] word) {
    int base = group * width;
    for (int w = 0; w < width; w++) {
      if (keys[base + w] != word[w]) {
        return false;
      }
    }
    return true;
  }

  private int insert(long[] word, int h, int slot) {
    int g = groups++;
    if (g == hashes.length) {
      hashes = Arrays.copyOf(hashes, g * 2);
      keys = Arrays.copyOf(keys, g * 2 * width);
    }
    hashes[g] = h;
    System.arraycopy(word, 0, keys, g * width, width);
    slots[slot] = g + 1;
    if (groups * 2 > slots.length) {
      rehash();
    }
    return g;
  }

  private void rehash() {
    slots = new int[slots.length * 2];
    int mask = slots.length - 1;
    for (int g = 0; g < groups; g++) {
      int s = hashes[g] & mask;
      while (slots[s] != 0) {
        s = (s + 1) & mask;
      }
      slots[s] = g + 1;
    }
  }

  private static int hash(long[] word) {
    long h = 0x9E3779B97F4A7C15L;
    for (long w : word) {
      h = (h ^ w) * 0xBF58476D1CE4E5B9L;
      h ^= h >>> 31;
    }
    return (int) (h ^ (h >>> 32));
  }
}
