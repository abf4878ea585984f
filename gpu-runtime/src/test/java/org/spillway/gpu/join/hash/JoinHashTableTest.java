package org.spillway.gpu.join.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The join hash table against a HashMap from key to build rows on random build sides: duplicate, NULL, skewed and
 * extreme keys, empty and all-NULL builds, sizes that span several build tasks and several prefix-sum chunks, both
 * layouts (direct and unchained), keys crafted to share a bucket and its Bloom filter bits. Every probe key's matches
 * (first, then next, turned into rows) must be exactly the reference's rows in build-row order, the batched firsts
 * must equal the one-by-one ones, and the table must know whether its keys were unique.
 */
class JoinHashTableTest {
  private static final int THREADS = 2;

  /** A build side's keys with its Arrow-layout validity (null: no NULL) and the reference of its valid rows. */
  private record Build(long[] keys, long[] validity, Map<Long, List<Integer>> reference) {
    static Build of(long[] keys, long[] validity) {
      Map<Long, List<Integer>> reference = new HashMap<>();
      for (int r = 0; r < keys.length; r++) {
        if (JoinHashTable.valid(validity, r)) {
          reference.computeIfAbsent(keys[r], k -> new ArrayList<>()).add(r);
        }
      }
      return new Build(keys, validity, reference);
    }
  }

  private static long[] validity(SplittableRandom random, int rows, double nullShare) {
    long[] validity = new long[(rows + 63) / 64];
    for (int r = 0; r < rows; r++) {
      if (random.nextDouble() >= nullShare) {
        validity[r >>> 6] |= 1L << r;
      }
    }
    return validity;
  }

  /** Key distributions: a small range (many duplicates), sparse 64-bit keys, a skewed one, the extremes. */
  private enum Keys {
    FEW_DISTINCT, SPARSE, SKEWED, EXTREME;

    long next(SplittableRandom random, int rows) {
      return switch (this) {
        case FEW_DISTINCT -> random.nextInt(Math.max(1, rows / 8));
        case SPARSE -> random.nextLong();
        case SKEWED -> (long) (rows * Math.pow(random.nextDouble(), 4)) * 1_000_003L;
        case EXTREME -> switch (random.nextInt(5)) {
          case 0 -> Long.MIN_VALUE;
          case 1 -> Long.MAX_VALUE;
          case 2 -> Long.MIN_VALUE + random.nextInt(3);
          case 3 -> Long.MAX_VALUE - random.nextInt(3);
          default -> random.nextInt(3) - 1;
        };
      };
    }
  }

  /** The rows of every match of {@code key}, in the order the table gives them. */
  private static List<Integer> matches(JoinHashTable table, long key) {
    List<Integer> rows = new ArrayList<>();
    for (int p = table.first(key); p >= 0; p = table.next(p)) {
      rows.add(table.row(p));
    }
    return rows;
  }

  private static void assertMatchesReference(Build build, JoinHashTable table, long[] probe, long[] probeValidity) {
    for (long key : Arrays.stream(probe).distinct().toArray()) {
      List<Integer> expected = build.reference().getOrDefault(key, List.of());
      assertEquals(expected, matches(table, key), "matches of key " + key + " (in build-row order)");
    }
    int[] firsts = new int[64];
    JoinHashTable.ProbeScratch scratch = new JoinHashTable.ProbeScratch(64);
    for (int from = 0; from < probe.length; from += 64) {
      int to = Math.min(probe.length, from + 64);
      table.firsts(probe, probeValidity, from, to, firsts, scratch);
      for (int r = from; r < to; r++) {
        int expected = JoinHashTable.valid(probeValidity, r) ? table.first(probe[r]) : -1;
        assertEquals(expected, firsts[r - from], "batched first of probe row " + r + ", key " + probe[r]);
      }
    }
  }

  /** Probe keys: half from the build side (NULL rows' keys included), half drawn afresh (mostly misses). */
  private static long[] probe(SplittableRandom random, long[] build, Keys keys, int rows) {
    long[] probe = new long[rows];
    for (int i = 0; i < rows; i++) {
      probe[i] = build.length > 0 && random.nextBoolean() ? build[random.nextInt(build.length)]
          : keys.next(random, Math.max(1, build.length));
    }
    return probe;
  }

  @Test void randomBuildSidesMatchAHashMap() {
    SplittableRandom random = new SplittableRandom(17);
    for (int rows : new int[] {1, 100, 5_000, 150_000}) {
      for (Keys keys : Keys.values()) {
        long[] buildKeys = new long[rows];
        for (int r = 0; r < rows; r++) {
          buildKeys[r] = keys.next(random, rows);
        }
        Build build = Build.of(buildKeys, validity(random, rows, 0.1));
        JoinHashTable table = JoinHashTable.build(buildKeys, build.validity(), rows, THREADS, () -> false);
        assertEquals(rows, table.rows());
        assertEquals(build.reference().values().stream().allMatch(r -> r.size() == 1), table.uniqueKeys(),
            rows + " " + keys + " keys: unique");
        int probeRows = Math.min(rows * 2, 20_000);
        assertMatchesReference(build, table, probe(random, buildKeys, keys, probeRows),
            validity(random, probeRows, 0.1));
      }
    }
  }

  /**
   * Keys spread evenly over a range (TPC-H's order keys of a filtered lineitem: about one in twenty, a few twice) are
   * placed by range; a probe side in key order, with keys below, above and far outside the range, finds exactly the
   * reference's rows. Keys as dense over their range but crowded into its two ends are placed by hash.
   */
  @Test void evenlySpreadKeysArePlacedByRangeAndCrowdedOnesByHash() {
    SplittableRandom random = new SplittableRandom(23);
    int rows = 100_000;
    long[] even = new long[rows];
    long[] crowded = new long[rows];
    for (int r = 0; r < rows; r++) {
      even[r] = 1_000 + random.nextInt(rows * 20);
      crowded[r] = (r % 2 == 0 ? 0 : rows * 20L) + random.nextInt(1000);
    }
    long[] probe = new long[40_000];  // ascending over the range and beyond both ends, then outliers
    for (int i = 0; i < probe.length; i++) {
      probe[i] = -500 + i * (rows * 20L + 2_000) / probe.length;
    }
    probe[probe.length - 3] = Long.MIN_VALUE;
    probe[probe.length - 2] = Long.MAX_VALUE;
    probe[probe.length - 1] = 1_000 + rows * 20L;
    for (long[] keys : new long[][] {even, crowded}) {
      Build build = Build.of(keys, validity(random, rows, 0.05));
      JoinHashTable table = JoinHashTable.build(keys, build.validity(), rows, THREADS, () -> false);
      assertEquals(keys == even, table.placedByRange(), keys == even ? "even keys" : "crowded keys");
      assertMatchesReference(build, table, probe, null);
      assertMatchesReference(build, table, probe(random, keys, Keys.SPARSE, 20_000), validity(random, 20_000, 0.1));
    }
  }

  @Test void uniqueKeysAndDuplicatesOfBothLayouts() {
    SplittableRandom random = new SplittableRandom(5);
    int rows = 70_000;
    long[] dense = new long[rows];
    for (int r = 0; r < rows; r++) {
      dense[r] = 1_000 + r;
    }
    for (int r = rows - 1; r > 0; r--) {
      int s = random.nextInt(r + 1);
      long t = dense[r];
      dense[r] = dense[s];
      dense[s] = t;
    }
    JoinHashTable direct = JoinHashTable.build(dense, null, rows, THREADS, () -> false);
    assertTrue(direct.direct());
    assertMatchesReference(Build.of(dense, null), direct, probe(random, dense, Keys.FEW_DISTINCT, 5_000), null);
    long[] spread = dense.clone();
    for (int r = 0; r < rows; r++) {
      spread[r] *= 97;  // still unique, but too sparse for the direct array
    }
    JoinHashTable unchained = JoinHashTable.build(spread, null, rows, THREADS, () -> false);
    assertFalse(unchained.direct());
    assertMatchesReference(Build.of(spread, null), unchained, probe(random, spread, Keys.SPARSE, 5_000), null);
    for (int stride : new int[] {8, 20}) {  // a direct array of 8 slots per key is worth its size, one of 20 is not
      long[] strided = new long[1_000];
      for (int r = 0; r < strided.length; r++) {
        strided[r] = (long) r * stride;
      }
      JoinHashTable table = JoinHashTable.build(strided, null, strided.length, THREADS, () -> false);
      assertEquals(stride == 8, table.direct(), "stride " + stride);
      assertMatchesReference(Build.of(strided, null), table, probe(random, strided, Keys.FEW_DISTINCT, 2_000), null);
    }
    long[] duplicated = dense.clone();
    duplicated[rows - 1] = duplicated[0];
    assertFalse(JoinHashTable.build(duplicated, null, rows, THREADS, () -> false).direct());
  }

  @Test void oneKeyRepeatedEverywhereMatchesEveryRowOnce() {
    int rows = 100_000;
    long[] keys = new long[rows];
    keys[rows / 2] = 42;  // one other key amid the run of zeros
    JoinHashTable table = JoinHashTable.build(keys, null, rows, THREADS, () -> false);
    List<Integer> zeros = matches(table, 0);
    zeros.sort(null);
    assertEquals(rows - 1, zeros.size());
    assertEquals(List.of(rows / 2), matches(table, 42));
    assertEquals(Build.of(keys, null).reference().get(0L), zeros);
  }

  @Test void emptyAndAllNullBuildSidesMatchNothing() {
    long[] probe = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE};
    long[] all = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 7};
    JoinHashTable empty = JoinHashTable.build(new long[0], null, 0, THREADS, () -> false);
    JoinHashTable allNull = JoinHashTable.build(all, new long[1], all.length, THREADS, () -> false);
    JoinHashTable prefix = JoinHashTable.build(all, null, 0, THREADS, () -> false);  // none of the rows counted
    for (JoinHashTable table : List.of(empty, allNull, prefix)) {
      assertMatchesReference(Build.of(new long[0], null), table, probe, null);
    }
    assertEquals(all.length, allNull.rows());
  }

  @Test void extremeKeysAreOrdinaryKeys() {
    long[] keys = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, Long.MIN_VALUE, Long.MAX_VALUE - 1};
    long[] validity = {0b101111};  // row 4 (the second MIN_VALUE) is NULL
    Build build = Build.of(keys, validity);
    JoinHashTable table = JoinHashTable.build(keys, validity, keys.length, THREADS, () -> false);
    assertFalse(table.direct());
    assertEquals(List.of(0), matches(table, Long.MIN_VALUE));
    assertMatchesReference(build, table, new long[] {Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, 1, -1,
        Long.MAX_VALUE - 1, Long.MAX_VALUE - 2}, null);
    long[] top = {Long.MAX_VALUE, Long.MAX_VALUE - 2, Long.MAX_VALUE - 1};  // dense at the top of the range
    JoinHashTable direct = JoinHashTable.build(top, null, top.length, THREADS, () -> false);
    assertTrue(direct.direct());
    assertMatchesReference(Build.of(top, null), direct, new long[] {Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 3},
        null);
  }

  /** Keys whose hashes agree in their top 32 bits: one bucket, and one Bloom filter tag, in any table here. */
  private static long[] sharingABucket(int count, long seed) {
    long inverse = JoinHashTable.HASH_MULTIPLIER;  // Newton's iteration: the multiplier's inverse modulo 2^64
    for (int i = 0; i < 5; i++) {
      inverse *= 2 - JoinHashTable.HASH_MULTIPLIER * inverse;
    }
    long[] keys = new long[count];
    for (int i = 0; i < count; i++) {
      keys[i] = (seed << 32 | i) * inverse;
    }
    return keys;
  }

  @Test void keysSharingABucketAndItsTagAreToldApartByTheirKeys() {
    long[] colliding = sharingABucket(12, 0x5EED);
    assertEquals(colliding[3] * JoinHashTable.HASH_MULTIPLIER >>> 32, colliding[8] * JoinHashTable.HASH_MULTIPLIER >>> 32);
    SplittableRandom random = new SplittableRandom(3);
    long[] keys = new long[2_000];
    for (int r = 0; r < keys.length; r++) {
      // the even colliding keys, a few times each in scattered rows, amid random keys
      keys[r] = r % 5 == 0 ? colliding[2 * random.nextInt(6)] : random.nextLong();
    }
    Build build = Build.of(keys, null);
    JoinHashTable table = JoinHashTable.build(keys, null, keys.length, THREADS, () -> false);
    assertFalse(table.uniqueKeys());
    for (int i = 1; i < colliding.length; i += 2) {
      assertEquals(-1, table.first(colliding[i]), "absent key " + i + " passes the bucket's Bloom filter only");
    }
    assertMatchesReference(build, table, colliding, null);
    assertMatchesReference(build, table, probe(random, keys, Keys.SPARSE, 3_000), null);
  }

  /**
   * A bucket of over a hundred tuples of three keys in scattered build rows (sorted by merging, not insertion) keeps
   * each key's rows together and in build-row order; NULL rows of those keys stay out.
   */
  @Test void aLongBucketOfSeveralKeysKeepsEachKeysRowsInOrder() {
    long[] colliding = sharingABucket(3, 0xB0CE);
    SplittableRandom random = new SplittableRandom(9);
    long[] keys = new long[150];
    for (int r = 0; r < keys.length; r++) {
      keys[r] = colliding[random.nextInt(3)];
    }
    long[] validity = validity(random, keys.length, 0.2);
    Build build = Build.of(keys, validity);
    JoinHashTable table = JoinHashTable.build(keys, validity, keys.length, THREADS, () -> false);
    assertFalse(table.direct());
    assertMatchesReference(build, table, colliding, null);
    long[] tuples = {5, 50, 3, 30, 5, 51, 1, 10, 3, 31};  // (key, row) pairs, rows ascending per key
    assertTrue(JoinHashTable.sortBucket(tuples, 0, 5, new long[10]));
    assertEquals(Arrays.toString(new long[] {1, 10, 3, 30, 3, 31, 5, 50, 5, 51}), Arrays.toString(tuples));
    assertFalse(JoinHashTable.sortBucket(new long[] {2, 0, 1, 1}, 0, 2, null), "two keys, no duplicate");
  }

  @Test void uniqueKeysSurviveNullRowsOfTheSameKey() {
    long[] keys = new long[100];
    for (int r = 0; r < keys.length; r++) {
      keys[r] = r * 1_000_003L;
    }
    keys[7] = keys[3];  // row 7 repeats row 3's key, but its key is NULL
    long[] validity = {~(1L << 7), -1L};
    assertTrue(JoinHashTable.build(keys, validity, keys.length, THREADS, () -> false).uniqueKeys());
    assertFalse(JoinHashTable.build(keys, null, keys.length, THREADS, () -> false).uniqueKeys());
  }
}
