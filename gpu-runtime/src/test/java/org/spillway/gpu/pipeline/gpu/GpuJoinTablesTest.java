package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.device.HostCopy;
import org.spillway.gpu.vector.IndexedColumns;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * The build side's packing of a two-column join key, which must equal the probe side's PACK instruction: the high
 * column's 32 bits above the low column's 32 bits (a negative low value must not spill into the high half), NULL
 * where either column is NULL. No GPU needed.
 */
class GpuJoinTablesTest {
  @Test void twoColumnKeysPackHighAboveLow() {
    long[] high = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 7};
    long[] low = {0, -1, 1, Integer.MIN_VALUE, Integer.MAX_VALUE, 7};
    boolean[] lowNulls = {false, false, false, false, false, true};
    ColumnVector packed = GpuJoinTables.packed(ColumnVector.ofLongs(ExprType.INT32, high, null, high.length),
        ColumnVector.ofLongs(ExprType.DATE, low, lowNulls, low.length));
    assertEquals(ExprType.INT64, packed.type);
    for (int r = 0; r < high.length - 1; r++) {
      long expected = (high[r] << 32) | (low[r] & 0xffffffffL);
      assertEquals(expected, packed.longs[r], "row " + r);
      assertEquals(high[r], packed.longs[r] >> 32, "the high half reads back as the high column");
      assertEquals(low[r], (int) packed.longs[r], "the low half reads back as the low column");
      assertFalse(packed.isNull(r));
    }
    assertTrue(packed.isNull(high.length - 1), "NULL in either column: a key that matches nothing");
    assertEquals(1L << 32 | 0xffffffffL, packed.longs[1], "1 and -1 pack apart from 2 and 0 (no carry)");
  }

  /**
   * Columns of 64-bit types pack where their values fit 32 bits; a value beyond refuses the table (the CPU runs the
   * pipeline), whatever a NULL row holds.
   */
  @Test void valuesBeyond32BitsRefuseTheTable() {
    long[] high = {5, -7, 1L << 40};
    long[] low = {Integer.MIN_VALUE, 9, 1};
    boolean[] nulls = {false, false, true};
    ColumnVector packed = GpuJoinTables.packed(ColumnVector.ofLongs(ExprType.INT64, high, nulls, 3),
        ColumnVector.ofLongs(ExprType.decimal(2), low, null, 3));
    assertEquals(5L << 32 | 0x80000000L, packed.longs[0]);
    assertTrue(packed.isNull(2), "the NULL row's value is not packed");
    long[] beyond = {5, Integer.MAX_VALUE + 1L, 1};
    GpuJoinTables.BuildKeysRefused e = org.junit.jupiter.api.Assertions.assertThrows(
        GpuJoinTables.BuildKeysRefused.class, () -> GpuJoinTables.packed(
            ColumnVector.ofLongs(ExprType.INT64, high, null, 2), ColumnVector.ofLongs(ExprType.INT64, beyond, null, 3)));
    assertTrue(e.getMessage().contains("2147483648, beyond 32 bits"), e.getMessage());
  }

  /** Columns that write themselves pack as their vectors do, over any range of rows and across blocks. */
  @Test void writtenColumnsPackAsTheVectorsDo() {
    long seed = System.nanoTime();
    java.util.Random random = new java.util.Random(seed);
    int rows = 10_000 + random.nextInt(5_000);
    long[] high = random.ints(rows).asLongStream().toArray();
    long[] low = random.ints(rows).asLongStream().toArray();
    ColumnVector expected = GpuJoinTables.packed(ColumnVector.ofLongs(ExprType.INT32, high, null, rows),
        ColumnVector.ofLongs(ExprType.INT32, low, null, rows));
    IndexedColumns.LongWriter packed = GpuJoinTables.packed(writer(high), writer(low));
    int from = random.nextInt(100);
    int n = rows - from - random.nextInt(100);
    long address = MemoryUtil.allocateMemory(n * 8L);
    try {
      packed.write(from, n, address);
      for (int i = 0; i < n; i++) {
        assertEquals(expected.longs[from + i], MemoryUtil.getLong(address + i * 8L), "row " + (from + i) + ", seed " + seed);
      }
    } finally {
      MemoryUtil.freeMemory(address);
    }
    assertNull(GpuJoinTables.packed(writer(high), null), "a column that cannot write itself packs as a vector");
  }

  private static IndexedColumns.LongWriter writer(long[] values) {
    return (from, n, address) -> HostCopy.put(address, values, from, n);
  }

  @Test void keysWithoutNullsStayWithoutNulls() {
    ColumnVector a = ColumnVector.ofLongs(ExprType.INT32, new long[] {3, 4}, null, 2);
    assertNull(GpuJoinTables.packed(a, a).nulls);
  }
}
