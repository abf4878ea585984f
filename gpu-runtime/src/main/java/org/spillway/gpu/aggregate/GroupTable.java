package org.spillway.gpu.aggregate;

import org.spillway.gpu.vector.ColumnVector;
import java.util.Arrays;

/**
 * Open-addressing hash table (linear probing) from a group key to a dense group number. A key is a fixed
 * number of long words: one per key column (doubles by their bits) plus a word of null flags. Each slot holds
 * the key's 32-bit hash and its first word beside its group, so a probe touches one cache line and reads the
 * group's other key words only when both match (never for one key column), and growing the table never
 * rehashes a key. One integer key column is addressed directly ({@link KeyDirectory}) for as long as its keys are
 * dense; the first keys too sparse for that move the table to hashing for good.
 */
final class GroupTable {
  /** Largest cross product of key ranges that the dense fast path caches for any morsel (ints, so 256 KiB). */
  private static final long MAX_DENSE = 1 << 16;
  /**
   * Largest for a morsel of at least a quarter as many rows, whose hashing costs more than filling the cache (ints, 1
   * MiB, within a core's L2 cache on the GPU hosts): Q16's regrouping of the GPU's groups by brand, type and size spans
   * 26 x 151 x 48 slots, and hashing its three-word keys took 3-4 times as long on one thread.
   */
  private static final long MAX_DENSE_LARGE = 1 << 18;

  private final int width;
  /** Whether the table takes lookups (a copy in partition order takes none). */
  private final boolean lookups;
  /** Groups the slots are first sized for. */
  private final int expectedGroups;
  /**
   * The rows this table is expected to take (0 where unknown), which bound the groups it can come to hold: keys
   * spread over their range from the first morsel on (not clustered in input order) are judged dense or not by the
   * groups they will make, not by the few a first morsel makes.
   */
  private final long expectedRows;
  private long[] keys;
  private int[] hashes;
  /**
   * Two words per slot: the key's hash in the high half and its group + 1 in the low half (0 = empty), then the
   * key's first word.
   */
  private long[] slots;
  /** With one key column whose keys are dense: its directory, while the slots are still unused (null); else null. */
  private KeyDirectory directory;
  private int groups;
  /**
   * With one key column: the group of the NULL key (-1 until seen), kept outside the slots so that a slot's first
   * word alone identifies its key (a NULL's word 0 would otherwise equal the value 0's).
   */
  private int nullKeyGroup = -1;
  /** The dense fast path's cache of groups, kept from morsel to morsel so that it is allocated once. */
  private int[] denseCache = new int[0];
  /**
   * The key ranges (per column: lowest value, then its stride) the cache's entries were made under, or null where
   * they are void: a morsel whose ranges are the same reads the groups the morsels before it found. Where the keys
   * take their whole ranges in every morsel (Q16's brand, type and size, regrouping the GPU's groups), each distinct
   * key is then looked up once in the whole input, not once per morsel.
   */
  private long[] denseRanges;

  GroupTable(int keyColumns) {
    this(keyColumns, 16);
  }

  /** A table sized to hold {@code expectedGroups} groups without growing. */
  GroupTable(int keyColumns, int expectedGroups) {
    this(keyColumns, expectedGroups, 0);
  }

  /**
   * A table sized to hold {@code expectedGroups} groups without growing, that expects to take about
   * {@code expectedRows} rows (0: unknown): a directory may cover up to {@link KeyDirectory#SPAN_PER_GROUP} keys per
   * such row from the first morsel on.
   */
  GroupTable(int keyColumns, int expectedGroups, long expectedRows) {
    int capacity = Math.max(16, expectedGroups);
    this.width = keyColumns + 1;
    this.lookups = true;
    this.expectedGroups = capacity;
    this.expectedRows = Math.max(0, expectedRows);
    this.keys = new long[capacity * width];
    this.hashes = new int[capacity];
    if (keyColumns == 1) {
      this.directory = new KeyDirectory();
    } else {
      this.slots = new long[slotWords(capacity)];
    }
  }

  private GroupTable(int width, long[] keys, int[] hashes, int groups) {
    this.width = width;
    this.lookups = false;
    this.expectedGroups = groups;
    this.expectedRows = 0;
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

  /** Whether the keys are addressed directly, so that lookups stay one array read however many groups there are. */
  boolean directlyAddressed() {
    return directory != null;
  }

  /**
   * The range of the keys of a directly addressed table ({@link KeyDirectory#lowestKey} ..
   * {@link KeyDirectory#highestKey}, a superset of its keys without the room its directory grew ahead of them, which
   * a merge by key range would otherwise cut into slices and scan), or null when it has none or hashes them.
   */
  long[] directRange() {
    return directory == null || directory.lowestKey() > directory.highestKey() ? null
        : new long[] {directory.lowestKey(), directory.highestKey()};
  }

  /**
   * The groups of a directly addressed table whose keys lie in {@code from .. to}, in key order, then the NULL key's
   * group if {@code withNullKey} and it has one.
   */
  int[] directGroups(long from, long to, boolean withNullKey) {
    int[] groupsOfKeys = directory.isEmpty() ? new int[0] : directory.groups(from, to);
    if (!withNullKey || nullKeyGroup < 0) {
      return groupsOfKeys;
    }
    int[] out = Arrays.copyOf(groupsOfKeys, groupsOfKeys.length + 1);
    out[groupsOfKeys.length] = nullKeyGroup;
    return out;
  }

  /**
   * The number of groups of a directly addressed table whose keys lie in {@code from .. to}, plus the NULL key's
   * group if {@code withNullKey} and it has one.
   */
  int directGroupCount(long from, long to, boolean withNullKey) {
    return (directory.isEmpty() ? 0 : directory.count(from, to)) + (withNullKey && nullKeyGroup >= 0 ? 1 : 0);
  }

  /** Whether keys {@code from .. to} (none if {@code from > to}) are addressed directly by this table's directory. */
  boolean coversDirectly(long from, long to) {
    return directory != null && (from > to || directory.covers(from) && directory.covers(to));
  }

  /**
   * For a merge by key range, with {@code from .. to} covered directly here ({@link #coversDirectly}): the groups of
   * {@code other}, a directly addressed table, whose keys lie in that range, in key order, then its NULL key's group
   * if {@code withNullKey}, into {@code sources}, and the group here of each one's key (made if new) into
   * {@code targets}; returns how many. A key is its position in the other's directory: its group's key words and
   * hash, which lie anywhere in the other's arrays, are never read.
   */
  int findOrInsertDirectGroups(GroupTable other, long from, long to, boolean withNullKey, int[] sources,
      int[] targets) {
    int n = 0;
    KeyDirectory theirs = other.directory;
    if (!theirs.isEmpty() && from <= to) {
      int[] otherEntries = theirs.entries();
      long otherBase = theirs.base();
      int[] entries = directory.entries();
      long base = directory.base();
      for (long key = Math.max(from, theirs.low()), last = Math.min(to, theirs.high()); key <= last; key++) {
        int source = otherEntries[(int) (key - otherBase)] - 1;
        if (source >= 0) {
          int e = (int) (key - base);
          int g = entries[e] - 1;
          if (g < 0) {
            g = appendSingle(key, hashSingle(key));
            entries[e] = g + 1;
          }
          sources[n] = source;
          targets[n++] = g;
        }
      }
    }
    if (withNullKey && other.nullKeyGroup >= 0) {
      sources[n] = other.nullKeyGroup;
      targets[n++] = nullKeyGroup();
    }
    return n;
  }

  /** Covers keys {@code low .. high} in the directory of a table that addresses its keys directly, if they fit it. */
  void reserveKeyRange(long low, long high) {
    if (directory != null && low <= high) {
      directory.cover(low, high, Math.max(groups, expectedGroups));
    }
  }

  /** Empties the table for reuse, keeping its arrays (and its choice between direct addressing and hashing). */
  void clear() {
    if (!lookups) {
      throw new IllegalStateException("a group table copied in partition order is not reused");
    }
    groups = 0;
    nullKeyGroup = -1;
    denseRanges = null;
    if (directory != null) {
      directory.clear();
    } else {
      Arrays.fill(slots, 0);
    }
  }

  /** Words of a slot array that holds {@code capacity} groups at a load factor of at most 1/2. */
  private static int slotWords(int capacity) {
    return 2 * Math.max(64, Integer.highestOneBit(Math.max(1, capacity - 1)) << 2);
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
    if (!lookups) {
      throw new IllegalStateException("a group table copied in partition order takes no lookups");
    }
    if (directory != null && keyColumns[0].longs != null && findOrInsertDirect(keyColumns[0], n, groupOut)) {
      return;
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
    long limit = Math.max(MAX_DENSE, Math.min(MAX_DENSE_LARGE, 4L * n));
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
      long[] range = col.nonNullRange(n);
      long min = range == null ? 0 : range[0];
      long max = range == null ? 0 : range[1];
      if (max - min > limit || max - min < 0) {
        return false;
      }
      long span = max - min + 2;  // one more slot for NULL
      mins[c] = min;
      nullSlots[c] = span - 1;
      strides[c] = product;
      product *= span;
      if (product > limit) {
        return false;
      }
    }
    long[] ranges = new long[2 * k];
    for (int c = 0; c < k; c++) {
      ranges[2 * c] = mins[c];
      ranges[2 * c + 1] = strides[c] * (nullSlots[c] + 1);  // the next stride: the column's span, NULL slot included
    }
    if (!Arrays.equals(ranges, denseRanges)) {
      if (denseCache.length < product) {
        denseCache = new int[(int) product];
      }
      Arrays.fill(denseCache, 0, (int) product, -1);
      denseRanges = ranges;
    }
    int[] cache = denseCache;
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
   * Direct addressing of one integer key column's groups, when the morsel's keys fit the directory
   * ({@link KeyDirectory#cover}, bounding the groups by those so far plus the morsel's rows, or by the groups the
   * table was sized for); when they do not, the table moves to hashing for good and this returns false.
   */
  private boolean findOrInsertDirect(ColumnVector column, int n, int[] groupOut) {
    long[] values = column.longs;
    boolean[] nulls = column.nulls;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      if (nulls == null || !nulls[i]) {
        min = Math.min(min, values[i]);
        max = Math.max(max, values[i]);
      }
    }
    long groupsBound = Math.max(Math.max((long) groups + n, expectedGroups), expectedRows);
    if (min <= max && !directory.cover(min, max, groupsBound)) {
      hashKeys();
      return false;
    }
    // a directly addressed table has at most a group per covered key and the NULL key's, and this morsel adds at
    // most n: room for the morsel's groups, doubling (not copying the keys at each doubling from the first morsel's
    // few groups on), never more than the directory can number
    int room = directory.entries().length + 1;
    if (groups + n > capacity()) {
      reserve((int) Math.min(room, Math.max((long) groups + n, 2L * capacity())));
    }
    int[] entries = directory.entries();
    long base = directory.base();
    for (int i = 0; i < n; i++) {
      if (nulls != null && nulls[i]) {
        groupOut[i] = nullKeyGroup();
        continue;
      }
      long v = values[i];
      int e = (int) (v - base);
      int g = entries[e] - 1;
      if (g < 0) {
        g = appendSingle(v, hashSingle(v));
        entries[e] = g + 1;
      }
      groupOut[i] = g;
    }
    return true;
  }

  /** Leaves direct addressing for good (keys came that are too sparse for it): puts every group in hash slots. */
  private void hashKeys() {
    directory = null;
    slots = new long[slotWords(Math.max(expectedGroups, groups))];
    int mask = (slots.length >> 1) - 1;
    for (int g = 0; g < groups; g++) {
      if (g == nullKeyGroup) {
        continue;
      }
      int s = hashes[g] & mask;
      while (slots[2 * s] != 0) {
        s = (s + 1) & mask;
      }
      slots[2 * s] = (long) hashes[g] << 32 | (g + 1);
      slots[2 * s + 1] = keys[g * width];
    }
  }

  /** The group of the NULL key of a one-column table, made if new. */
  private int nullKeyGroup() {
    if (nullKeyGroup < 0) {
      long[] word = {0, 1};
      nullKeyGroup = append(word, hash(word));
    }
    return nullKeyGroup;
  }

  /** Stores a new group of a one-column table's non-NULL key. */
  private int appendSingle(long value, int h) {
    int g = newGroup(h);
    keys[2 * g] = value;
    keys[2 * g + 1] = 0;
    return g;
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
      return nullKeyGroup();
    }
    if (directory != null) {
      long v = word[0];
      if (directory.cover(v, v, groups + 1L)) {
        int g = directory.get(v) - 1;
        if (g < 0) {
          g = appendSingle(v, h);
          directory.put(v, g);
        }
        return g;
      }
      hashKeys();
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
    int g = newGroup(h);
    System.arraycopy(word, 0, keys, g * width, width);
    return g;
  }

  /** The groups the table holds before its arrays grow. */
  int capacity() {
    return hashes.length;
  }

  /** Makes room for {@code capacity} groups in the key and hash arrays. */
  private void reserve(int capacity) {
    if (capacity > hashes.length) {
      hashes = Arrays.copyOf(hashes, capacity);
      keys = Arrays.copyOf(keys, capacity * width);
    }
  }

  /** Numbers a new group and stores its hash, making room for its key words. */
  private int newGroup(int h) {
    int g = groups++;
    if (g == hashes.length) {
      hashes = Arrays.copyOf(hashes, g * 2);
      keys = Arrays.copyOf(keys, g * 2 * width);
    }
    hashes[g] = h;
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
