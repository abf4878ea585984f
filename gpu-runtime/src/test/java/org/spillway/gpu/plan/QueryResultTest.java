package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.device.SpillwayResourceException;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * A plan's output read row by row: on random batches (empty ones among them) of numbers, decimals, dates and
 * dictionary-encoded text with NULLs, every cursor gives the rows in order with the JDBC values, against the
 * rows written down as they were made.
 */
class QueryResultTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT64, ExprType.decimal(2), ExprType.DATE,
      ExprType.STRING, ExprType.FLOAT64);
  private static final List<String> DICTIONARY = List.of("AIR", "RAIL", "SHIP");

  @Test void cursorsWalkEveryBatchInOrder() {
    Random random = new Random(17);
    for (int round = 0; round < 20; round++) {
      List<ColumnBatch> batches = new ArrayList<>();
      List<List<Object>> expected = new ArrayList<>();
      for (int b = random.nextInt(5); b > 0; b--) {
        batches.add(batch(random, random.nextInt(4) == 0 ? 0 : random.nextInt(6), expected));
      }
      QueryResult result = QueryResult.run(source(batches), new RunContext(1, () -> false));
      List<List<String>> dictionaries = Arrays.asList(null, null, null, DICTIONARY, null);
      QueryResult.Cursor first = result.cursor(dictionaries);
      assertEquals(expected, rows(first), "round " + round);
      first.reset();
      assertEquals(expected, rows(first), "round " + round + ", after reset");
      assertEquals(expected, rows(result.cursor(dictionaries)), "round " + round + ", a second cursor");
      assertFalse(first.next());
    }
  }

  @Test void runningOutOfMemoryFailsTheQueryAsAResourceError() {
    OutOfMemoryError oom = new OutOfMemoryError("Java heap space");
    PlanNode failing = new PlanNode() {
      @Override public List<ExprType> types() {
        return TYPES;
      }

      @Override public NodeOutput run(RunContext context) {
        throw oom;
      }
    };
    SpillwayResourceException e = assertThrows(SpillwayResourceException.class,
        () -> QueryResult.run(failing, new RunContext(1, () -> false)));
    assertSame(oom, e.getCause());
  }

  private static ColumnBatch batch(Random random, int rows, List<List<Object>> expected) {
    long[] ints = new long[rows];
    long[] cents = new long[rows];
    long[] days = new long[rows];
    long[] codes = new long[rows];
    double[] doubles = new double[rows];
    boolean[][] nulls = new boolean[TYPES.size()][rows];
    for (int r = 0; r < rows; r++) {
      ints[r] = random.nextLong();
      cents[r] = random.nextInt(2_000_000) - 1_000_000;
      days[r] = random.nextInt(20_000);
      codes[r] = random.nextInt(DICTIONARY.size());
      doubles[r] = random.nextGaussian();
      List<Object> row = new ArrayList<>(List.of(ints[r], BigDecimal.valueOf(cents[r], 2), (int) days[r],
          DICTIONARY.get((int) codes[r]), doubles[r]));
      for (int c = 0; c < TYPES.size(); c++) {
        nulls[c][r] = random.nextInt(5) == 0;
        if (nulls[c][r]) {
          row.set(c, null);
        }
      }
      expected.add(row);
    }
    ColumnVector[] columns = {ColumnVector.ofLongs(TYPES.get(0), ints, nulls[0], rows),
        ColumnVector.ofLongs(TYPES.get(1), cents, nulls[1], rows),
        ColumnVector.ofLongs(TYPES.get(2), days, nulls[2], rows),
        ColumnVector.ofLongs(TYPES.get(3), codes, nulls[3], rows),
        ColumnVector.ofDoubles(doubles, nulls[4], rows)};
    return new ColumnBatch(columns, rows);
  }

  private static List<List<Object>> rows(QueryResult.Cursor cursor) {
    List<List<Object>> out = new ArrayList<>();
    while (cursor.next()) {
      List<Object> row = new ArrayList<>();
      for (int c = 0; c < cursor.columns(); c++) {
        row.add(cursor.value(c));
      }
      out.add(row);
    }
    return out;
  }

  private static PlanNode source(List<ColumnBatch> batches) {
    return new PlanNode() {
      @Override public List<ExprType> types() {
        return TYPES;
      }

      @Override public NodeOutput run(RunContext context) {
        return new BatchOutput(batches, TYPES);
      }
    };
  }
}
