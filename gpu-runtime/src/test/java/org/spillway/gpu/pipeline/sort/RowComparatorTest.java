package org.spillway.gpu.pipeline.sort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * BIG_DECIMAL sort keys compare as unscaled longs where every value fits 64 bits at the largest scale: the order is
 * the BigDecimals' (scales mixed, negatives, NULLs first or last, either direction), and a value beyond 64 bits keeps
 * the BigDecimal comparison.
 */
class RowComparatorTest {
  @Test void bigDecimalKeysSortAsTheirValues() {
    Random random = new Random(3);
    for (boolean wide : List.of(false, true)) {
      int n = 500;
      Object[] values = new Object[n];
      boolean[] nulls = new boolean[n];
      for (int r = 0; r < n; r++) {
        nulls[r] = random.nextInt(9) == 0;
        // scales 0 to 3 mixed; ties between 1.5 and 1.50 compare equal either way
        values[r] = nulls[r] ? null : BigDecimal.valueOf(random.nextInt(2001) - 1000, random.nextInt(4));
      }
      if (wide) {
        values[7] = new BigDecimal(BigInteger.ONE.shiftLeft(70), 2);
        nulls[7] = false;
      }
      ColumnVector column = ColumnVector.ofObjects(ExprType.BIG_DECIMAL, values, nulls, n);
      assertEquals(wide, RowComparator.unscaledLongs(column) == column, "longs only where every value fits");
      for (boolean descending : List.of(false, true)) {
        for (boolean nullsFirst : List.of(false, true)) {
          SortKey key = new SortKey(0, descending, nullsFirst);
          RowComparator comparator = new RowComparator(new ColumnVector[] {column}, List.of(key));
          List<Integer> rows = new ArrayList<>();
          for (int r = 0; r < n; r++) {
            rows.add(r);
          }
          Comparator<Integer> byValue = (a, b) -> {
            if (nulls[a] || nulls[b]) {
              return nulls[a] == nulls[b] ? 0 : nulls[a] == nullsFirst ? -1 : 1;
            }
            int c = ((BigDecimal) values[a]).compareTo((BigDecimal) values[b]);
            return descending ? -c : c;
          };
          List<Integer> expected = new ArrayList<>(rows);
          expected.sort(byValue.thenComparing(Comparator.naturalOrder()));
          rows.sort(comparator::compare);
          assertEquals(expected, rows, "wide " + wide + ", descending " + descending + ", nulls first " + nullsFirst);
        }
      }
    }
  }

  @Test void aColumnOfNullsStaysAllNull() {
    ColumnVector none = ColumnVector.ofObjects(ExprType.BIG_DECIMAL, new Object[2], new boolean[] {true, true}, 2);
    ColumnVector longs = RowComparator.unscaledLongs(none);
    assertEquals(ExprType.INT64, longs.type);
    assertSame(none.nulls, longs.nulls);
  }
}
