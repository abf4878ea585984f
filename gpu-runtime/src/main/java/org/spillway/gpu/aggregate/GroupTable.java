package org.spillway.gpu.aggregate;

import org.spillway.gpu.vector.ColumnVector;
import java.util.Arrays;

/**
 * Open-addressing hash table (linear probing) from a group key to a dense group number. A key is a fixed
 * number of long words: one per key column (doubles by their bits) plus a word of null flags. Each slot holds
 * the key's 32-bit hash and its first word beside its group, so a probe touches one cache line and reads the
 * group's other key words only when both match (never for one key column), and growing the table never
 * rehashes a key.
 */
final class GroupTable {
  /** Largest cross product of key ranges that the dense fast path caches (ints, so 256 KiB). */
  private static final long MAX_DENSE = 1 << 16;

  private final int width;
  private long[] keys;
  private int[] hashes;
  /**
   * Two words per slot: the key's hash in the high half and its group + 1 in the low half (0 = empty), then the
   * key's first word.
   */
  private long[] slots;
  private int groups;
  /**
   * With one key column: the group of the NULL key (-1 until seen), kept outside the slots so that a slot's first
   * word alone identifies its key (a NULL's word 0 would otherwise equal the value 0's).
   */
  private int nullKeyGroup = -1;

  GroupTable(int keyColumns) {
    this(keyColumns, 16);
  }

  /** A table sized to hold {@code expectedGroups} groups without growing. */
  GroupTable(int keyColumns, int expectedGroups) {
    int capacity = Math.max(16, expectedGroups);
    this.width = keyColumns + 1;
    this.keys = new long[capacity * width];
    this.hashes = new int[capacity];
    this.slots = new long[2 * Math.max(64, Integer.highestOneBit(capacity - 1) << 2)];
  }

  private GroupTable(int width, long[] keys, int[] hashes, int groups) {
    this.width = width;
    this.keys = keys;
    this.hashes = hashes;
    this.groups = groups;
  }

  /**
   * A copy of the given groups' keys and hashes in that order (group g of the copy is group order[g] here), to be
   * read in sequence; it has no slots, so it takes no lookups.
   */
  GroupTable inOrder(int[] order) {
    long[] orderedKeys = new long[order.length * width];
    int[] orderedHashes = new int[order.length];
    for (int g = 0; g < order.length; g++) {
      System.arraycopy(keys, order[g] * width, orderedKeys, g * width, width);
      orderedHashes[g] = hashes[order[g]];
    }
    return new GroupTable(width, orderedKeys, orderedHashes, order.length);
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
    if (slots == null) {
      throw new IllegalStateException("a group table copied in partition order takes no lookups");
    }
    if (findDense(keyColumns, n, groupOut)) {
      return;
    }
    if (keyColumns.length == 1 && keyColumns[0].longs != null) {
      findOrInsertLongs(keyColumns[0], n, groupOut);
      return;
    }
    long[] word = new long[width];
    for (int i = 0; i < n; i++) {
      groupOut[i] = findOrInsert(keyWord(keyColumns, i, word));
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

  /**
   * Fast path for one integer key column (the common GROUP BY of an id): hashes and compares the value itself,
   * without assembling a key word array per row. NULL rows take the general path.
   */
  private void findOrInsertLongs(ColumnVector column, int n, int[] groupOut) {
    long[] values = column.longs;
    long[] word = new long[width];
    for (int i = 0; i < n; i++) {
      if (column.isNull(i)) {
        word[0] = 0;
        word[1] = 1;
        groupOut[i] = findOrInsert(word);
        continue;
      }
      long v = values[i];
      int h = hashSingle(v);
      int mask = (slots.length >> 1) - 1;
      int g;
      for (int s = h & mask; ; s = (s + 1) & mask) {
        long slot = slots[2 * s];
        if (slot == 0) {
          word[0] = v;
          word[1] = 0;
          g = insert(word, h, s);
          break;
        }
        if ((int) (slot >>> 32) == h && slots[2 * s + 1] == v) {
          g = (int) slot - 1;
          break;
        }
      }
      groupOut[i] = g;
    }
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
    return findOrInsert(word, hash(word));
  }

  /** The group of one key whose hash (by this class's function) is known, inserting it if new. */
  int findOrInsert(long[] word, int h) {
    if (width == 2 && word[1] != 0) {
      if (nullKeyGroup < 0) {
        nullKeyGroup = append(word, h);
      }
      return nullKeyGroup;
    }
    int mask = (slots.length >> 1) - 1;
    long first = word[0];
    for (int s = h & mask; ; s = (s + 1) & mask) {
      long slot = slots[2 * s];
      if (slot == 0) {
        return insert(word, h, s);
      }
      if ((int) (slot >>> 32) == h && slots[2 * s + 1] == first && (width == 2 || sameKey((int) slot - 1, word))) {
        return (int) slot - 1;
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
    int g = append(word, h);
    slots[2 * slot] = (long) h << 32 | (g + 1);
    slots[2 * slot + 1] = word[0];
    if (groups > slots.length >> 2) {  // load factor 1/2
      grow();
    }
    return g;
  }

  /** Stores a new group's key and hash. */
  private int append(long[] word, int h) {
    int g = groups++;
    if (g == hashes.length) {
      hashes = Arrays.copyOf(hashes, g * 2);
      keys = Arrays.copyOf(keys, g * 2 * width);
    }
    hashes[g] = h;
    System.arraycopy(word, 0, keys, g * width, width);
    return g;
  }

  /** Doubles the slots, placing each key by the hash its slot kept. */
  private void grow() {
    long[] old = slots;
    slots = new long[old.length * 2];
    int mask = (slots.length >> 1) - 1;
    for (int o = 0; o < old.length; o += 2) {
      if (old[o] != 0) {
        int s = (int) (old[o] >>> 32) & mask;
        while (slots[2 * s] != 0) {
          s = (s + 1) & mask;
        }
        slots[2 * s] = old[o];
        slots[2 * s + 1] = old[o + 1];
      }
    }
  }

  /** The hash of a key word array; for one non-NULL column it equals {@link #hashSingle} of the value. */
  static int hash(long[] word) {
    long h = 0x9E3779B97F4A7C15L;
    for (long w : word) {
      h = mix(h, w);
    }
    return (int) (h ^ (h >>> 32));
  }

  /** {@link #hash} of the key {value, no null flags}. */
  private static int hashSingle(long value) {
    long h = mix(mix(0x9E3779B97F4A7C15L, value), 0);
    return (int) (h ^ (h >>> 32));
  }

  private static long mix(long h, long w) {
    h = (h ^ w) * 0xBF58476D1CE4E5B9L;
    return h ^ (h >>> 31);
  }
}
