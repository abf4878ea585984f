package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
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

  @Test void keysWithoutNullsStayWithoutNulls() {
    ColumnVector a = ColumnVector.ofLongs(ExprType.INT32, new long[] {3, 4}, null, 2);
    assertNull(GpuJoinTables.packed(a, a).nulls);
  }
}
