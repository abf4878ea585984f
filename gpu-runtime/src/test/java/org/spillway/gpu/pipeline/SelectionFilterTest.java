package org.spillway.gpu.pipeline;

import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.RandomExprs;
import org.spillway.gpu.expr.RowReference;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Morsel#filter} through {@link SelectionFilter} against the row-at-a-time reference: random conjunctions
 * of every select loop's shape and of general expressions, over Arrow sources (lazy columns read at the selected
 * rows) and over loaded columns, with and without NULLs, after earlier filters that left a selection.
 */
class SelectionFilterTest {
  private static final int TRIALS = 400;
  private static final ExprType DEC2 = ExprType.decimal(2);

  private BufferAllocator allocator;
  private RandomBatches data;

  @BeforeEach void open() {
    allocator = new RootAllocator();
    data = new RandomBatches(allocator);
  }

  @AfterEach void close() {
    data.close();
    allocator.close();
  }

  @Test void selectsTheRowsWhereTheReferenceIsTrue() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    RandomExprs gen = new RandomExprs(random);
    int compared = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
      int rows = 1 + random.nextInt(random.nextBoolean() ? 50 : 3000);
      int offset = random.nextInt(3) == 0 ? random.nextInt(100) : 0;
      Object[][] values = values(gen, offset + rows, random.nextBoolean());
      List<Expr> conditions = new ArrayList<>();
      for (int f = random.nextInt(3); f >= 0; f--) {  // one to three filters in a row
        conditions.add(conjunction(gen, random));
      }
      String where = "seed " + seed + ", trial " + trial + ", filters " + conditions;
      List<Object[]> expected = new ArrayList<>();
      boolean referenceFailed = false;
      try {
        for (int r = offset; r < offset + rows; r++) {
          if (keeps(conditions, values[r])) {
            expected.add(values[r]);
          }
        }
      } catch (ArithmeticException e) {
        referenceFailed = true;  // the reference evaluates conjuncts after a NULL one, the filter does not
      }
      Morsel morsel = random.nextBoolean() ? sourceMorsel(values, offset, rows) : columnMorsel(values, offset, rows);
      for (int c = 0; c < RandomExprs.SCHEMA.size(); c++) {
        if (random.nextInt(4) == 0) {
          morsel.column(c);  // a mix of loaded and lazy columns
        }
      }
      try {
        for (Expr condition : conditions) {
          morsel.filter(condition);
        }
      } catch (ArithmeticException e) {
        assertTrue(referenceFailed, () -> where + " failed only in the filter: " + e.getMessage());
        continue;
      }
      if (referenceFailed) {
        continue;
      }
      assertSameRows(expected, morsel, where);
      compared++;
    }
    assertTrue(compared > TRIALS / 2, "too few comparable trials (" + compared + "), seed " + seed);
  }

  @Test void inListsOfSmallValuesKeepWhatEachRangeTestKeeps() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int trial = 0; trial < 300; trial++) {
      // ascending, disjoint ranges near a random base (an extreme one at times), some a single value
      long base = switch (random.nextInt(4)) {
        case 0 -> Long.MIN_VALUE + random.nextInt(3);
        case 1 -> Long.MAX_VALUE - SelectionFilter.MAX_BITMAP_SPAN - random.nextInt(3);
        default -> random.nextInt(2000) - 1000;
      };
      int n = 2 + random.nextInt(9);
      long[] lows = new long[n];
      long[] highs = new long[n];
      long at = base;
      for (int r = 0; r < n; r++) {
        lows[r] = at + (r == 0 ? 0 : 1 + random.nextInt(trial % 3 == 0 ? 900 : 20));
        highs[r] = lows[r] + (random.nextBoolean() ? 0 : random.nextInt(5));
        at = highs[r];
      }
      Boolean nullAs = random.nextBoolean() ? null : random.nextBoolean();
      int rows = 1 + random.nextInt(3000);
      long[] values = new long[rows];
      for (int i = 0; i < rows; i++) {
        values[i] = switch (random.nextInt(5)) {
          case 0 -> random.nextLong();
          case 1 -> lows[random.nextInt(n)] - 1;
          case 2 -> highs[random.nextInt(n)] + 1;
          default -> lows[0] + (long) (random.nextDouble() * (highs[n - 1] - lows[0] + 3)) - 1;
        };
      }
      boolean[] nulls = someNulls(values, random);
      Expr test = new Expr.InRanges(new Expr.Column(0, ExprType.INT64), lows, highs, nullAs);
      assertEquals(inRanges(values, nulls, lows, highs, nullAs, false), filtered(test, values, nulls),
          "seed " + seed + ", trial " + trial + ", ranges " + Arrays.toString(lows) + " .. " + Arrays.toString(highs));
    }
  }

  /**
   * NOT of a range test (NOT LIKE over dictionary codes) selects the complement ranges: a NULL row stays NULL (dropped)
   * unless the test names it, ranges that touch either end of the long values included.
   */
  @Test void notOfRangesKeepsWhatTheRangesDrop() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int trial = 0; trial < 300; trial++) {
      int n = random.nextInt(4);
      long[] lows = new long[n];
      long[] highs = new long[n];
      long at = random.nextInt(3) == 0 ? Long.MIN_VALUE : random.nextInt(200) - 100;
      for (int r = 0; r < n; r++) {
        lows[r] = r == 0 ? at : at + 1 + random.nextInt(trial % 2 == 0 ? 3 : 40);
        highs[r] = r == n - 1 && random.nextInt(4) == 0 ? Long.MAX_VALUE : lows[r] + random.nextInt(30);
        at = highs[r];
      }
      Boolean nullAs = random.nextBoolean() ? null : random.nextBoolean();
      int rows = 1 + random.nextInt(3000);
      long[] values = new long[rows];
      for (int i = 0; i < rows; i++) {
        values[i] = n == 0 || random.nextInt(6) == 0 ? random.nextLong()
            : lows[random.nextInt(n)] + random.nextInt(50) - 10;
      }
      boolean[] nulls = someNulls(values, random);
      Expr test = new Expr.Not(new Expr.InRanges(new Expr.Column(0, ExprType.INT64), lows, highs, nullAs));
      assertEquals(inRanges(values, nulls, lows, highs, nullAs, true), filtered(test, values, nulls), "seed " + seed
          + ", trial " + trial + ", NOT of " + Arrays.toString(lows) + " .. " + Arrays.toString(highs) + ", nullAs "
          + nullAs);
    }
  }

  /** NULL flags for about an eighth of the values, half of the time (else null); a NULL row holds 0. */
  private static boolean[] someNulls(long[] values, Random random) {
    if (random.nextBoolean()) {
      return null;
    }
    boolean[] nulls = new boolean[values.length];
    for (int i = 0; i < values.length; i++) {
      if (random.nextInt(8) == 0) {
        nulls[i] = true;
        values[i] = 0;
      }
    }
    return nulls;
  }

  /** The values a range test keeps (its NOT where {@code negated}): a NULL row stays NULL unless {@code nullAs} says. */
  private static List<Long> inRanges(long[] values, boolean[] nulls, long[] lows, long[] highs, Boolean nullAs,
      boolean negated) {
    List<Long> kept = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      boolean hit = false;
      for (int r = 0; r < lows.length; r++) {
        hit |= values[i] >= lows[r] && values[i] <= highs[r];
      }
      boolean keep = nulls != null && nulls[i] ? nullAs != null && nullAs != negated : hit != negated;
      if (keep) {
        kept.add(values[i]);
      }
    }
    return kept;
  }

  /** The values of one long column that a morsel of them keeps under {@code condition}. */
  private static List<Long> filtered(Expr condition, long[] values, boolean[] nulls) {
    int rows = values.length;
    Morsel morsel = Morsel.ofColumns(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, values, nulls, rows)},
        rows);
    morsel.filter(condition);
    ColumnVector kept = morsel.column(0);
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < morsel.rows(); i++) {
      out.add(kept.longs[i]);
    }
    return out;
  }

  @Test void complementRangesCoverEveryOtherValue() {
    long min = Long.MIN_VALUE;
    long max = Long.MAX_VALUE;
    assertArrayEquals(new long[][] {{min, 5}, {3, max}}, SelectionFilter.complement(new long[] {4}, new long[] {4}));
    assertArrayEquals(new long[][] {{min}, {max}}, SelectionFilter.complement(new long[0], new long[0]));
    assertArrayEquals(new long[][] {{}, {}}, SelectionFilter.complement(new long[] {min}, new long[] {max}));
    assertArrayEquals(new long[][] {{3}, {max}}, SelectionFilter.complement(new long[] {min}, new long[] {2}));
    assertArrayEquals(new long[][] {{min, 3}, {1, 4}}, SelectionFilter.complement(new long[] {2, 5},
        new long[] {2, max}));
    assertNull(SelectionFilter.complement(new long[] {5, 1}, new long[] {6, 2}), "not ascending");
  }

  @Test void laterConjunctsNeverRunOnRowsAnEarlierOneDropped() {
    Expr x = new Expr.Column(1, ExprType.INT64);
    Expr quotient = new Expr.Arith(Expr.ArithOp.DIVIDE, new Expr.Literal(100L, ExprType.INT64), x, ExprType.INT64);
    Expr bigQuotient = new Expr.Compare(Expr.CompareOp.GT, quotient, new Expr.Literal(5L, ExprType.INT64));
    List<Expr> guards = List.of(
        new Expr.Compare(Expr.CompareOp.NE, x, new Expr.Literal(0L, ExprType.INT64)),
        new Expr.Compare(Expr.CompareOp.LT, new Expr.Literal(0L, ExprType.INT64), x),
        new Expr.InRanges(x, new long[] {Long.MIN_VALUE, 1}, new long[] {-1, Long.MAX_VALUE}, null),
        new Expr.Logical(true, List.of(new Expr.IsNull(x, true),
            new Expr.Compare(Expr.CompareOp.NE, x, new Expr.Column(0, ExprType.INT32)))));
    Object[][] values = new Object[200][];
    for (int r = 0; r < values.length; r++) {
      Long v = r % 7 == 3 ? null : (long) (r % 5) - 2;  // zeros, NULLs, negatives
      values[r] = new Object[] {0L, v, 0L, 0.0, 9000L, 1L, 1L};
    }
    for (Expr guard : guards) {
      Expr condition = new Expr.Logical(true, List.of(guard, bigQuotient));
      List<Object[]> expected = new ArrayList<>();
      for (Object[] row : values) {
        Object v = row[1];
        if (v != null && (Long) v != 0 && keeps(List.of(guard), row) && 100 / (Long) v > 5) {
          expected.add(row);
        }
      }
      for (boolean fromSource : new boolean[] {true, false}) {
        Morsel morsel = fromSource ? sourceMorsel(values, 0, values.length) : columnMorsel(values, 0, values.length);
        morsel.filter(condition);  // 100 / 0 would throw
        assertSameRows(expected, morsel, condition + (fromSource ? " over Arrow" : " over vectors"));
      }
    }
  }

  @Test void emptyAndFullSelections() {
    RandomExprs gen = new RandomExprs(new Random(7));
    for (boolean nulls : new boolean[] {true, false}) {
      emptyAndFullSelections(values(gen, 300, nulls));
    }
  }

  private void emptyAndFullSelections(Object[][] values) {
    List<Object[]> all = Arrays.asList(values);
    Expr always = new Expr.Literal(1L, ExprType.BOOLEAN);
    Expr never = new Expr.Literal(0L, ExprType.BOOLEAN);
    Expr unknown = new Expr.Literal(null, ExprType.BOOLEAN);
    Expr everyDate = new Expr.InRanges(new Expr.Column(4, ExprType.DATE), new long[] {0}, new long[] {100_000}, true);
    Expr againstNull = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Column(1, ExprType.INT64),
        new Expr.Literal(null, ExprType.INT64));
    Expr noRange = new Expr.InRanges(new Expr.Column(0, ExprType.INT32), new long[0], new long[0], null);
    Expr emptyRange = new Expr.InRanges(new Expr.Column(1, ExprType.INT64), new long[] {5}, new long[] {4}, null);
    for (boolean fromSource : new boolean[] {true, false}) {
      for (Expr keepAll : List.of(always, everyDate, new Expr.Logical(true, List.of(always, everyDate)))) {
        Morsel morsel = fromSource ? sourceMorsel(values, 0, 300) : columnMorsel(values, 0, 300);
        morsel.filter(keepAll);
        assertSameRows(all, morsel, keepAll.toString());
      }
      for (Expr keepNone : List.of(never, unknown, againstNull, noRange, emptyRange,
          new Expr.Logical(true, List.of(everyDate, never, bigDivision())))) {
        Morsel morsel = fromSource ? sourceMorsel(values, 0, 300) : columnMorsel(values, 0, 300);
        morsel.filter(keepNone);
        assertSameRows(List.of(), morsel, keepNone.toString());
        morsel.filter(bigDivision());  // nothing left to divide
        assertEquals(0, morsel.rows());
      }
    }
  }

  /**
   * A morsel's first comparison with a constant (one unsigned range test of the long lane) over INT32, DATE and
   * INT64 sources at the types' extremes: constants at and beyond them, every operator, either operand order, a
   * morsel that starts inside its batch, and a NULL in or only before the morsel's rows.
   */
  @Test void firstLiteralComparisonAtTheExtremes() {
    RandomExprs gen = new RandomExprs(new Random(13));
    long[] ints = {Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1, 7, Integer.MAX_VALUE - 1, Integer.MAX_VALUE};
    long[] longs = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, 7, Long.MAX_VALUE - 1, Long.MAX_VALUE};
    for (boolean nullBeforeOnly : new boolean[] {false, true}) {
      Object[][] values = values(gen, 500, false);
      for (int r = 0; r < values.length; r++) {
        values[r][0] = ints[r % ints.length];
        values[r][1] = longs[(r * 3) % longs.length];
        values[r][4] = ints[(r * 5) % ints.length] & 0xFFFF;  // dates: days from 1970, kept small
      }
      values[nullBeforeOnly ? 3 : 200][1] = null;  // a morsel from row 10 on sees it only in the second case
      for (Expr.CompareOp op : Expr.CompareOp.values()) {
        for (int v = 0; v < ints.length; v++) {
          for (Expr condition : List.of(
              new Expr.Compare(op, new Expr.Column(0, ExprType.INT32), new Expr.Literal(ints[v], ExprType.INT32)),
              new Expr.Compare(op, new Expr.Column(1, ExprType.INT64), new Expr.Literal(longs[v], ExprType.INT64)),
              new Expr.Compare(op, new Expr.Literal(longs[v], ExprType.INT64), new Expr.Column(1, ExprType.INT64)),
              new Expr.Compare(op, new Expr.Column(4, ExprType.DATE), new Expr.Literal(ints[v] & 0xFFFF,
                  ExprType.DATE)))) {
            List<Object[]> expected = new ArrayList<>();
            for (int r = 10; r < values.length; r++) {
              if (keeps(List.of(condition), values[r])) {
                expected.add(values[r]);
              }
            }
            Morsel morsel = sourceMorsel(values, 10, values.length - 10);
            morsel.filter(condition);
            assertSameRows(expected, morsel, condition + ", NULL before the morsel only: " + nullBeforeOnly);
          }
        }
      }
    }
  }

  /** Another morsel's filter on the same thread reuses the scratch buffers; what the first kept must not change. */
  @Test void aMorselKeepsNothingOfTheScratchBuffers() {
    RandomExprs gen = new RandomExprs(new Random(11));
    Object[][] a = values(gen, 2000, true);
    Object[][] b = values(gen, 2000, true);
    Expr condition = new Expr.Logical(true, List.of(
        new Expr.Compare(Expr.CompareOp.GT, new Expr.Column(1, ExprType.INT64), new Expr.Literal(0L, ExprType.INT64)),
        new Expr.Compare(Expr.CompareOp.LE, new Expr.Column(2, DEC2), new Expr.Literal(3000L, DEC2))));
    Morsel first = sourceMorsel(a, 0, a.length);
    first.column(2);
    first.filter(condition);
    Morsel second = sourceMorsel(b, 0, b.length);
    second.filter(new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(1, ExprType.INT64),
        new Expr.Literal(0L, ExprType.INT64)));
    List<Object[]> expected = new ArrayList<>();
    for (Object[] row : a) {
      if (keeps(List.of(condition), row)) {
        expected.add(row);
      }
    }
    assertSameRows(expected, first, condition.toString());
  }

  private static Expr bigDivision() {
    Expr zero = new Expr.Literal(0L, ExprType.INT64);
    return new Expr.Compare(Expr.CompareOp.GT,
        new Expr.Arith(Expr.ArithOp.DIVIDE, new Expr.Column(1, ExprType.INT64), zero, ExprType.INT64), zero);
  }

  /** An AND of one to four conjuncts, mostly of the shapes the select loops take, some of any shape. */
  private static Expr conjunction(RandomExprs gen, Random random) {
    List<Expr> conjuncts = new ArrayList<>();
    for (int k = random.nextInt(4); k >= 0; k--) {
      conjuncts.add(switch (random.nextInt(8)) {
        case 0 -> literalCompare(gen, random);
        case 1 -> literalCompare(gen, random);
        case 2 -> columnCompare(random);
        case 3 -> gen.bool(0);  // a BOOLEAN column, a range test or a comparison
        case 4 -> new Expr.IsNull(column(random.nextInt(RandomExprs.SCHEMA.size())), random.nextBoolean());
        case 5 -> random.nextBoolean() ? new Expr.Literal(1L, ExprType.BOOLEAN) : column(5);
        case 6 -> unorderedRanges(random);
        default -> gen.bool(2);
      });
    }
    return conjuncts.size() == 1 ? conjuncts.get(0) : new Expr.Logical(true, conjuncts);
  }

  /** A range test whose ranges may be empty (low above high), as a Sarg's open bounds can make them. */
  private static Expr unorderedRanges(Random random) {
    int n = 1 + random.nextInt(3);
    long[] lows = new long[n];
    long[] highs = new long[n];
    for (int r = 0; r < n; r++) {
      lows[r] = random.nextInt(121) - 60;
      highs[r] = random.nextInt(121) - 60;
    }
    Boolean nullAs = random.nextBoolean() ? null : random.nextBoolean();
    return new Expr.InRanges(column(random.nextBoolean() ? 0 : 1), lows, highs, nullAs);
  }

  private static Expr column(int index) {
    return new Expr.Column(index, RandomExprs.SCHEMA.get(index));
  }

  /** A long-lane column (or a widening cast of one) against a literal on either side, NULL now and then. */
  private static Expr literalCompare(RandomExprs gen, Random random) {
    Expr.CompareOp op = Expr.CompareOp.values()[random.nextInt(6)];
    int index = new int[] {0, 1, 2, 4, 6}[random.nextInt(5)];
    Expr operand = column(index);
    ExprType type = operand.type();
    if (index == 0 && random.nextBoolean()) {
      operand = new Expr.Cast(operand, ExprType.INT64);
      type = ExprType.INT64;
    }
    Object value = gen.value(RandomExprs.SCHEMA.get(index));
    if (random.nextInt(20) == 0) {
      value = random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    Expr literal = new Expr.Literal(value, type);
    return random.nextBoolean() ? new Expr.Compare(op, operand, literal) : new Expr.Compare(op, literal, operand);
  }

  /** Two long-lane columns of one type compared: INT64 with INT32 widened, DATE with DATE, codes with codes. */
  private static Expr columnCompare(Random random) {
    Expr.CompareOp op = Expr.CompareOp.values()[random.nextInt(6)];
    return switch (random.nextInt(3)) {
      case 0 -> new Expr.Compare(op, column(1), new Expr.Cast(column(0), ExprType.INT64));
      case 1 -> new Expr.Compare(op, column(4), column(4));
      default -> new Expr.Compare(op, column(6), column(6));
    };
  }

  private static boolean keeps(List<Expr> conditions, Object[] row) {
    for (Expr condition : conditions) {
      Object v = RowReference.eval(condition, row);
      if (v == null || (Long) v != 1) {
        return false;
      }
    }
    return true;
  }

  private static Object[][] values(RandomExprs gen, int rows, boolean nulls) {
    Object[][] values = new Object[rows][RandomExprs.SCHEMA.size()];
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < RandomExprs.SCHEMA.size(); c++) {
        Object x = gen.value(RandomExprs.SCHEMA.get(c));
        while (x == null && !nulls) {
          x = gen.value(RandomExprs.SCHEMA.get(c));
        }
        values[r][c] = x;
      }
    }
    return values;
  }

  /** Rows {@code offset ..} of Arrow vectors holding all the values: none loaded yet. */
  private Morsel sourceMorsel(Object[][] values, int offset, int rows) {
    FieldVector[] vectors = new FieldVector[RandomExprs.SCHEMA.size()];
    for (int c = 0; c < vectors.length; c++) {
      vectors[c] = data.vector(RandomExprs.SCHEMA.get(c), values, c, values.length);
    }
    return Morsel.ofSource(vectors, RandomExprs.SCHEMA, offset, rows);
  }

  private static Morsel columnMorsel(Object[][] values, int offset, int rows) {
    ColumnVector[] columns = new ColumnVector[RandomExprs.SCHEMA.size()];
    for (int c = 0; c < columns.length; c++) {
      ExprType type = RandomExprs.SCHEMA.get(c);
      long[] longs = new long[rows];
      double[] doubles = new double[rows];
      boolean[] nulls = new boolean[rows];
      boolean any = false;
      for (int r = 0; r < rows; r++) {
        Object x = values[offset + r][c];
        nulls[r] = x == null;
        any |= x == null;
        if (x instanceof Long l) {
          longs[r] = l;
        } else if (x instanceof Double d) {
          doubles[r] = d;
        }
      }
      nulls = any ? nulls : null;  // as loads give them: flags only where a row is NULL
      columns[c] = type.isLong() ? ColumnVector.ofLongs(type, longs, nulls, rows)
          : ColumnVector.ofDoubles(doubles, nulls, rows);
    }
    return Morsel.ofColumns(columns, rows);
  }

  private static void assertSameRows(List<Object[]> expected, Morsel morsel, String where) {
    assertEquals(expected.size(), morsel.rows(), where + ": rows kept");
    ColumnVector[] columns = morsel.materialize();
    for (int r = 0; r < expected.size(); r++) {
      for (int c = 0; c < columns.length; c++) {
        int row = r;
        int column = c;
        assertEquals(expected.get(r)[c], RowReference.valueOf(columns[c], r),
            () -> where + ": row " + row + ", column " + column);
      }
    }
  }
}
