package org.spillway.gpu.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The chunked row-index column: appends across chunk borders, concatenation of per-thread parts, reads. */
class RowIdColumnTest {
  @Test
  void concatenatedPartsReadBackInOrder() {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    int[] sizes = {0, 1 + random.nextInt(10), RowIdColumn.CHUNK_ROWS + random.nextInt(100),
        2 * RowIdColumn.CHUNK_ROWS};
    RowIdColumn[] parts = new RowIdColumn[sizes.length];
    int total = 0;
    for (int size : sizes) {
      total += size;
    }
    int[] expected = new int[total];
    int at = 0;
    for (int p = 0; p < sizes.length; p++) {
      parts[p] = new RowIdColumn();
      for (int i = 0; i < sizes[p]; i++) {
        expected[at] = random.nextInt();
        parts[p].add(expected[at++]);
      }
      assertEquals(sizes[p], parts[p].size());
    }
    RowIdColumn all = RowIdColumn.concat(List.of(parts));
    assertEquals(total, all.size());
    assertArrayEquals(expected, all.toArray(), "seed " + seed);
    for (int probe = 0; probe < 1000; probe++) {
      int i = random.nextInt(total);
      assertEquals(expected[i], all.get(i), "position " + i + ", seed " + seed);
    }
    assertEquals(expected[total - 1], all.get(total - 1));
    long size = total;
    assertThrows(IndexOutOfBoundsException.class, () -> all.get(size));
  }

  @Test
  void readsWhileStillAppending() {
    RowIdColumn column = new RowIdColumn();
    for (int i = 0; i < RowIdColumn.CHUNK_ROWS + 5; i++) {
      column.add(i * 3);
    }
    assertEquals(RowIdColumn.CHUNK_ROWS + 5, column.size());
    assertEquals(3 * (RowIdColumn.CHUNK_ROWS + 4), column.get(RowIdColumn.CHUNK_ROWS + 4));
    assertEquals(3 * (RowIdColumn.CHUNK_ROWS - 1), column.get(RowIdColumn.CHUNK_ROWS - 1));
    assertEquals(0, column.get(0));
  }
}
