package org.spillway.gpu.aggregate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyDirectory} against a HashMap on random key windows that grow it downward and upward (entries must
 * survive every growth; the groups of a key range come in key order), its refusal of ranges too sparse for the groups
 * (counting the keys asked, not the room grown ahead of them), and ranges at the ends of a long.
 */
class KeyDirectoryTest {
  @Test void groupsSurviveGrowthInBothDirections() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    KeyDirectory directory = new KeyDirectory();
    Map<Long, Integer> reference = new HashMap<>();
    long center = random.nextLong(1L << 40) - (1L << 39);
    for (int window = 0; window < 40; window++) {
      long low = center + random.nextInt(20_000) - 10_000;
      long high = low + random.nextInt(2000);
      assertTrue(directory.cover(low, high, 1_000_000), "seed " + seed + ", window " + window);
      for (long key = low; key <= high; key += 1 + random.nextInt(3)) {
        assertTrue(directory.covers(key));
        Integer expected = reference.get(key);
        assertEquals(expected == null ? 0 : expected + 1, directory.get(key), "seed " + seed + ", key " + key);
        if (expected == null) {
          reference.put(key, reference.size());
          directory.put(key, reference.size() - 1);
        }
      }
    }
    reference.forEach((key, group) -> assertEquals(group + 1, directory.get(key), "seed " + seed + ", key " + key));
    for (int slice = 0; slice < 20; slice++) {
      long from = center - 15_000 + random.nextInt(30_000);
      long to = from + random.nextInt(5000) - 100;
      int[] expected = reference.entrySet().stream().filter(e -> e.getKey() >= from && e.getKey() <= to)
          .sorted(Map.Entry.comparingByKey()).mapToInt(Map.Entry::getValue).toArray();
      assertArrayEquals(expected, directory.groups(from, to), "seed " + seed + ", groups of " + from + ".." + to);
    }
    directory.clear();
    reference.keySet().forEach(key -> assertEquals(0, directory.get(key)));
  }

  /**
   * Room grown ahead of the keys (toward the side they came from) is not counted against the density limit: keys
   * random over a range that fits the limit are covered wherever the growth went, and their groups survive.
   */
  @Test void roomGrownAheadDoesNotRefuseKeysWhoseRangeFits() {
    KeyDirectory directory = new KeyDirectory();
    long groups = 300;  // at most 1200 keys
    assertTrue(directory.cover(1000, 1999, groups));
    directory.put(1000, 0);
    directory.put(1999, 1);
    assertTrue(directory.cover(999, 999, groups), "one key below: grown downward, with room below it");
    directory.put(999, 2);
    assertTrue(directory.low() < 999, "room grown ahead, below the keys");
    assertTrue(directory.cover(2000, 2000, groups), "one key above: the keys 999 .. 2000 fit 1200");
    assertEquals(1, directory.get(1000));
    assertEquals(2, directory.get(1999));
    assertEquals(3, directory.get(999));
    assertEquals(0, directory.get(2000));
    assertFalse(directory.cover(2199, 2199, groups), "the keys 999 .. 2199 do not fit 1200");
    assertEquals(999, directory.lowestKey());
    assertEquals(2000, directory.highestKey());
    directory.clear();
    assertTrue(directory.lowestKey() > directory.highestKey(), "no key asked since the clear");
    assertTrue(directory.cover(3000, 3000 + 1199, groups), "after a clear only the keys asked since count");
  }

  @Test void sparseOrHugeRangesAreRefused() {
    KeyDirectory directory = new KeyDirectory();
    long most = KeyDirectory.SPAN_PER_GROUP * 100;
    assertFalse(directory.cover(0, most, 100), most + 1 + " keys for 100 groups");
    assertTrue(directory.cover(0, most - 1, 100));
    assertFalse(directory.cover(0, KeyDirectory.MAX_SPAN, Long.MAX_VALUE / 16), "beyond the largest directory");
    assertFalse(directory.cover(Long.MIN_VALUE, 0, Long.MAX_VALUE / 16), "a span that overflows a long");
    assertFalse(directory.covers(Long.MAX_VALUE));
    assertFalse(directory.covers(Long.MIN_VALUE));
    assertFalse(directory.covers(-1));
    assertTrue(directory.covers(most - 1));
  }

  @Test void keysAtTheEndsOfALong() {
    KeyDirectory top = new KeyDirectory();
    assertTrue(top.cover(Long.MAX_VALUE - 5, Long.MAX_VALUE, 20));
    top.put(Long.MAX_VALUE, 7);
    assertTrue(top.cover(Long.MAX_VALUE - 40, Long.MAX_VALUE - 40, 20), "grown downward, below the top");
    assertEquals(8, top.get(Long.MAX_VALUE));
    assertFalse(top.cover(Long.MIN_VALUE, Long.MIN_VALUE, 20));
    KeyDirectory nearTop = new KeyDirectory();
    assertTrue(nearTop.cover(Long.MAX_VALUE - 10, Long.MAX_VALUE - 5, 100));
    nearTop.put(Long.MAX_VALUE - 10, 0);
    assertTrue(nearTop.cover(Long.MAX_VALUE, Long.MAX_VALUE, 100), "grown upward to the top");
    nearTop.put(Long.MAX_VALUE, 1);
    assertTrue(nearTop.cover(Long.MAX_VALUE - 10, Long.MAX_VALUE, 100));
    assertEquals(1, nearTop.get(Long.MAX_VALUE - 10));
    assertEquals(2, nearTop.get(Long.MAX_VALUE));
    KeyDirectory bottom = new KeyDirectory();
    assertTrue(bottom.cover(Long.MIN_VALUE, Long.MIN_VALUE + 3, 20));
    bottom.put(Long.MIN_VALUE, 2);
    assertTrue(bottom.cover(Long.MIN_VALUE + 50, Long.MIN_VALUE + 50, 20));
    assertEquals(3, bottom.get(Long.MIN_VALUE));
    assertFalse(bottom.covers(Long.MAX_VALUE));
  }
}
