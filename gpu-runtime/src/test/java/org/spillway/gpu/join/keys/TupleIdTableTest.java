package org.spillway.gpu.join.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link TupleIdTable} against a map of boxed tuples, growing far beyond the tuples it expected. */
class TupleIdTableTest {
  @Test void denseIdsThroughGrowthAndLookups() {
    SplittableRandom random = new SplittableRandom(42);
    int rows = 50_000;
    long[][] lanes = new long[3][rows];
    for (int r = 0; r < rows; r++) {
      lanes[0][r] = random.nextInt(40);
      lanes[1][r] = random.nextLong();  // most tuples distinct
      lanes[2][r] = random.nextInt(3) - 1;
      if (random.nextInt(4) == 0) {
        lanes[1][r] = 7;  // and many repeated
      }
    }
    TupleIdTable table = new TupleIdTable(3, 16);
    Map<List<Long>, Integer> reference = new HashMap<>();
    for (int r = 0; r < rows; r++) {
      List<Long> tuple = List.of(lanes[0][r], lanes[1][r], lanes[2][r]);
      int expected = reference.computeIfAbsent(tuple, t -> reference.size());
      assertEquals(expected, table.insert(lanes, r), "row " + r);
    }
    assertEquals(reference.size(), table.size());
    for (int r = 0; r < rows; r++) {
      assertEquals(reference.get(List.of(lanes[0][r], lanes[1][r], lanes[2][r])), table.find(lanes, r));
    }
    long[][] absent = {{41}, {7}, {0}};
    assertEquals(-1, table.find(absent, 0));
  }
}
