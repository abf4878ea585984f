package org.spillway.gpu.aggregate;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupTable} against a HashMap that numbers keys in the order first seen, on random keys: one integer
 * column with NULLs (hashed when sparse, the dense path for narrow ranges, direct addressing for dense keys, also
 * ranges that drift from morsel to morsel and dense keys that turn sparse), two columns with a double, across many
 * growths; and lookups of single key words, which must hash as the batched paths do.
 */
class GroupTableTest {
  @Test void groupsNumberKeysInFirstSeenOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int trial = 0; trial < 12; trial++) {
      boolean twoColumns = trial % 6 == 2;
      long range = switch (trial % 6) {
        case 0 -> 1L << 40;
        case 1 -> 300;
        case 3 -> 80_000;  // dense, wider than the dense path's per-morsel cache
        default -> 50_000;
      };
      boolean drifting = trial % 6 == 4;  // each morsel's dense window lies beside (below or above) the last ones
      boolean turnsSparse = trial % 6 == 5;  // dense keys, then one morsel of keys far away
      GroupTable table = new GroupTable(twoColumns ? 2 : 1);
      Map<List<Object>, Integer> reference = new HashMap<>();
      long drift = 0;
      for (int morsel = 0; morsel < 5; morsel++) {
        // dense trials take morsels big enough that their keys are dense from the first morsel on
        int n = trial % 6 >= 3 ? 20_000 + random.nextInt(3000) : 100 + random.nextInt(12_000);
        long[] ids = new long[n];
        boolean[] nulls = new boolean[n];
        double[] doubles = new double[n];
        drift += drifting ? (random.nextBoolean() ? 1 : -1) * range : 0;
        long offset = turnsSparse && morsel == 3 ? Long.MAX_VALUE - range : drift;
        for (int i = 0; i < n; i++) {
          ids[i] = offset + random.nextLong(range) - range / 2;
          nulls[i] = random.nextInt(50) == 0;
          doubles[i] = random.nextInt(5) == 0 ? -0.0 : random.nextInt(3) * 0.5;
        }
        ColumnVector[] keys = twoColumns
            ? new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, nulls, n), ColumnVector.ofDoubles(doubles,
                null, n)}
            : new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, nulls, n)};
        int[] groups = new int[n];
        table.findOrInsert(keys, n, groups);
        String where = "seed " + seed + ", trial " + trial + ", morsel " + morsel;
        for (int i = 0; i < n; i++) {
          List<Object> key = twoColumns ? Arrays.asList(nulls[i] ? null : ids[i], doubles[i] + 0.0)
              : Arrays.asList(nulls[i] ? null : ids[i]);
          Integer expected = reference.putIfAbsent(key, reference.size());
          assertEquals(expected == null ? reference.size() - 1 : expected, groups[i], where + ", key " + key);
        }
        assertEquals(reference.size(), table.size(), where);
        if (!twoColumns) {
          boolean direct = (range <= 50_000 || trial % 6 == 3) && !(turnsSparse && morsel >= 3);
          assertEquals(direct, table.directlyAddressed(), where + ": whether the keys are addressed directly");
        }
      }
      reference.forEach((key, group) -> {
        long[] word = new long[key.size() + 1];
        for (int k = 0; k < key.size(); k++) {
          Object v = key.get(k);
          word[k] = v == null ? 0 : v instanceof Long l ? l : Double.doubleToLongBits((Double) v);
          word[key.size()] |= v == null ? 1L << k : 0;
          assertEquals(word[k], table.keyWord(group, k), "seed " + seed + ", key " + key);
        }
        assertEquals(word[key.size()], table.keyWord(group, key.size()), "seed " + seed + ", null flags of " + key);
        assertEquals(GroupTable.hash(word), table.hash(group), "seed " + seed + ", hash of " + key);
        assertEquals(group, table.findOrInsert(word), "seed " + seed + ", lookup of " + key);
      });
      assertEquals(reference.size(), table.size(), "seed " + seed + ": lookups inserted nothing");
    }
  }

  /**
   * Three narrow key columns (Q16's brand, type and size): the dense path's cache of groups carries over from morsel to
   * morsel while the ranges stay, and starts over where they change or the table is cleared; the groups always number
   * keys in the order first seen, NULLs included.
   */
  @Test void theDenseCacheCarriesOverWhileTheRangesStay() {
    denseCacheCarriesOver(new long[] {24, 145, 8}, 4000);
  }

  /**
   * As above over Q16's whole ranges (brand, type and the eight sizes between 3 and 49: a cross product of about 190,000
   * keys), which morsels of 50,000 rows or more take on the dense path.
   */
  @Test void wideRangesOfLargeMorselsTakeTheDenseCacheToo() {
    denseCacheCarriesOver(new long[] {24, 150, 47}, 50_000);
  }

  private static void denseCacheCarriesOver(long[] spans, int rows) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    GroupTable table = new GroupTable(3);
    Map<List<Long>, Integer> reference = new HashMap<>();
    for (int morsel = 0; morsel < 9; morsel++) {
      if (morsel == 6) {
        table.clear();
        reference.clear();
      }
      // the same ranges, except morsels 3 (one column wider) and 4 (shifted); every value in each morsel's range
      long shift = morsel == 4 ? 3 : 0;
      long wider = morsel == 3 ? 5 : 0;
      int n = rows + random.nextInt(rows / 2);
      ColumnVector[] keys = new ColumnVector[3];
      long[][] values = new long[3][n];
      boolean[] nulls = new boolean[n];
      for (int c = 0; c < 3; c++) {
        long span = spans[c] + (c == 1 ? wider : 0);
        for (int i = 0; i < n; i++) {
          values[c][i] = shift + (i < span ? i : random.nextLong(span));
        }
      }
      for (int i = (int) spans[1] + 10; i < n; i++) {
        nulls[i] = random.nextInt(40) == 0;
      }
      keys[0] = ColumnVector.ofLongs(ExprType.STRING, values[0], null, n);
      keys[1] = ColumnVector.ofLongs(ExprType.STRING, values[1], null, n);
      keys[2] = ColumnVector.ofLongs(ExprType.INT32, values[2], nulls, n);
      int[] groups = new int[n];
      table.findOrInsert(keys, n, groups);
      for (int i = 0; i < n; i++) {
        List<Long> key = Arrays.asList(values[0][i], values[1][i], nulls[i] ? null : values[2][i]);
        Integer expected = reference.putIfAbsent(key, reference.size());
        assertEquals(expected == null ? reference.size() - 1 : expected, groups[i],
            "seed " + seed + ", morsel " + morsel + ", row " + i + ", key " + key);
      }
      assertEquals(reference.size(), table.size(), "seed " + seed + ", morsel " + morsel);
    }
  }

  /** NULL and 0 share the key word 0 (the null flags tell them apart), on the single-key and the general path. */
  @Test void nullAndZeroAreDifferentGroups() {
    long[] ids = {0, 0, 1L << 50, 0, 0};
    boolean[] nulls = {false, true, false, true, false};
    GroupTable single = new GroupTable(1);
    int[] groups = new int[ids.length];
    single.findOrInsert(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, nulls, ids.length)}, ids.length,
        groups);
    assertEquals(List.of(0, 1, 2, 1, 0), Arrays.stream(groups).boxed().toList());
    assertEquals(1, single.findOrInsert(new long[] {0, 1}));
    assertEquals(0, single.findOrInsert(new long[] {0, 0}));
    GroupTable pairs = new GroupTable(2);
    assertEquals(0, pairs.findOrInsert(new long[] {0, 5, 0}));
    assertEquals(1, pairs.findOrInsert(new long[] {0, 5, 1}));
    assertEquals(2, pairs.findOrInsert(new long[] {0, 6, 0}));
    assertEquals(1, pairs.findOrInsert(new long[] {0, 5, 1}));
    assertEquals(3, pairs.size());
  }

  /** A cleared table numbers its keys from 0 again, whether it addresses them directly or hashes them. */
  @Test void aClearedTableStartsOver() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (long range : new long[] {1000, 1L << 50}) {
      GroupTable table = new GroupTable(1);
      for (int round = 0; round < 3; round++) {
        int n = 300 + random.nextInt(3000);  // enough rows that 1000 keys are dense from the first round on
        long[] ids = new long[n];
        boolean[] nulls = new boolean[n];
        for (int i = 0; i < n; i++) {
          ids[i] = random.nextLong(range);
          nulls[i] = random.nextInt(20) == 0;
        }
        int[] groups = new int[n];
        table.findOrInsert(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, nulls, n)}, n, groups);
        Map<Long, Integer> reference = new HashMap<>();
        for (int i = 0; i < n; i++) {
          Integer expected = reference.putIfAbsent(nulls[i] ? null : ids[i], reference.size());
          assertEquals(expected == null ? reference.size() - 1 : expected, groups[i],
              "seed " + seed + ", range " + range + ", round " + round + ", row " + i);
        }
        assertEquals(reference.size(), table.size());
        assertEquals(range == 1000, table.directlyAddressed(), "seed " + seed + ", range " + range);
        table.clear();
        assertEquals(0, table.size());
      }
    }
  }

  /**
   * A slice of a merge by key range: a directly addressed table's groups of a key range (and its NULL key's) are
   * paired, in key order, with the groups of the same keys in the merging table, which has some of them already
   * and makes the others; the keys and hashes of the groups made are those the key's own lookup gives.
   */
  @Test void directGroupsOfAKeyRangePairWithTheMergingTablesGroups() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int n = 5000;
    long[] ids = new long[n];
    boolean[] nulls = new boolean[n];
    for (int i = 0; i < n; i++) {
      ids[i] = 10_000 + random.nextInt(3000);
      nulls[i] = random.nextInt(100) == 0;
    }
    GroupTable worker = new GroupTable(1);
    int[] workerGroups = new int[n];
    worker.findOrInsert(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, nulls, n)}, n, workerGroups);
    GroupTable merged = new GroupTable(1, worker.size());  // sized for the groups, as a slice's table is
    long from = 10_500;
    long to = 11_999;
    merged.reserveKeyRange(from, to);
    assertEquals(true, merged.coversDirectly(from, to), "seed " + seed);
    int before = merged.findOrInsert(new long[] {11_000, 0});  // a key the merging table had before
    int[] sources = new int[worker.size()];
    int[] targets = new int[worker.size()];
    int count = merged.findOrInsertDirectGroups(worker, from, to, true, sources, targets);
    assertEquals(worker.directGroupCount(from, to, true), count, "seed " + seed);
    long previous = Long.MIN_VALUE;
    for (int i = 0; i < count; i++) {
      String where = "seed " + seed + ", pair " + i;
      boolean nullKey = worker.keyWord(sources[i], 1) != 0;
      assertEquals(i == count - 1, nullKey, where + ": the NULL key's group comes last");
      long key = worker.keyWord(sources[i], 0);
      if (!nullKey) {
        assertEquals(true, key >= from && key <= to && key > previous, where + ": keys of the range, ascending");
        previous = key;
      }
      long[] word = {key, nullKey ? 1 : 0};
      assertEquals(merged.findOrInsert(word), targets[i], where + ": the merging table's group of the key");
      assertEquals(GroupTable.hash(word), merged.hash(targets[i]), where + ": its hash");
      assertEquals(true, key != 11_000 || nullKey || targets[i] == before, where + ": an existing group is kept");
    }
  }

  /**
   * A table that addresses its keys directly makes room for a morsel's groups before it numbers them, doubling its
   * arrays (so that growing stays linear), and never past a group per covered key and NULL's.
   */
  @Test void aDirectlyAddressedTableGrowsByDoublingUpToItsKeyRange() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    GroupTable table = new GroupTable(1);
    int capacity = table.capacity();
    for (int morsel = 0; morsel < 8; morsel++) {
      int n = 5000;
      long[] ids = new long[n];
      for (int i = 0; i < n; i++) {
        ids[i] = i == 0 ? 0 : i == 1 ? 9999 : random.nextInt(10_000);  // the whole range from the first morsel on
      }
      table.findOrInsert(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, null, n)}, n, new int[n]);
      String where = "seed " + seed + ", morsel " + morsel;
      assertEquals(true, table.directlyAddressed(), where);
      assertEquals(true, table.capacity() >= table.size(), where + ": room for the groups");
      assertEquals(true, table.capacity() == capacity || table.capacity() >= 2 * capacity
          || table.capacity() == 10_001, where + ": grown " + capacity + " -> " + table.capacity() + ", not doubled");
      assertEquals(true, table.capacity() <= Math.max(10_001, 2 * table.size()), where + ": " + table.capacity()
          + " groups of room for " + table.size() + " groups of 10,000 keys");
      capacity = table.capacity();
    }
  }

  /**
   * Keys spread at random over a range from the first morsel on (a worker's share of a table's rows, grouped by a
   * key the rows are not clustered by) are addressed directly when the rows the table expects to take would make
   * them dense, though the first morsel's few groups do not; the groups are those a HashMap numbers. A table
   * expecting too few rows for the range, or none known, hashes them.
   */
  @Test void aTableExpectingManyRowsAddressesSpreadKeysDirectlyFromTheFirstMorsel() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int range = 100_000;
    int n = 4096;  // a morsel's keys span the range with a group per 25 keys of it
    for (long expectedRows : new long[] {0, 10_000, 200_000}) {
      GroupTable table = new GroupTable(1, 16, expectedRows);
      Map<Long, Integer> reference = new HashMap<>();
      for (int morsel = 0; morsel < 6; morsel++) {
        long[] ids = new long[n];
        boolean[] nulls = new boolean[n];
        for (int i = 0; i < n; i++) {
          ids[i] = 7 + random.nextInt(range);
          nulls[i] = random.nextInt(50) == 0;
        }
        int[] groups = new int[n];
        table.findOrInsert(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, ids, nulls, n)}, n, groups);
        String where = "seed " + seed + ", expecting " + expectedRows + " rows, morsel " + morsel;
        for (int i = 0; i < n; i++) {
          Integer expected = reference.putIfAbsent(nulls[i] ? null : ids[i], reference.size());
          assertEquals(expected == null ? reference.size() - 1 : expected, groups[i], where + ", row " + i);
        }
        assertEquals(reference.size(), table.size(), where);
        assertEquals(expectedRows == 200_000, table.directlyAddressed(), where + ": whether addressed directly");
      }
    }
  }

  /**
   * The key range a directly addressed table gives a merge by key range is that of its keys, not the room its
   * directory grew ahead of them (which the merge would cut into slices and scan for nothing).
   */
  @Test void theDirectRangeIsThatOfTheKeys() {
    GroupTable table = new GroupTable(1);
    long[] first = new long[2000];
    for (int i = 0; i < first.length; i++) {
      first[i] = 5000 + i % 1000;
    }
    table.findOrInsert(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, first, null, 2000)}, 2000,
        new int[2000]);
    long[] below = {4990, 4995};
    table.findOrInsert(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, below, null, 2)}, 2, new int[2]);
    assertEquals(true, table.directlyAddressed());
    assertEquals(true, table.coversDirectly(4000, 4989), "room grown ahead, below the keys");
    assertArrayEquals(new long[] {4990, 5999}, table.directRange());
  }

  @Test void aTableSizedUpFrontHoldsItsGroups() {
    GroupTable table = new GroupTable(1, 1000);
    for (long k = 0; k < 1000; k++) {
      assertEquals((int) k, table.findOrInsert(new long[] {k * 7919, 0}));
    }
    for (long k = 0; k < 1000; k++) {
      assertEquals((int) k, table.findOrInsert(new long[] {k * 7919, 0}));
    }
    assertEquals(1000, table.size());
  }
}
