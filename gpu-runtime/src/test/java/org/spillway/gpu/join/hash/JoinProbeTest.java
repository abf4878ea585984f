package org.spillway.gpu.join.hash;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.cpu.ColumnarPipeline;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.vector.IndexedColumns;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The pipelined hash join (a {@link PipelineStage.HashJoinProbe} in a CPU pipeline) against a nested-loop
 * reference on random inputs: every kind, with and without a residual, NULL and duplicate keys, two packed key
 * columns, the direct and the unchained table, and keys so frequent that one morsel's output is cut into parts.
 */
class JoinProbeTest {
  private static final ExprType INT = ExprType.INT32;
  private static final ExprType BIG = ExprType.INT64;

  /** A side of rows: column 0 and 1 keys (INT32, nullable), column 2 a payload (INT64). */
  private record Side(long[][] values, boolean[][] nulls, int rows) {
    ColumnVector column(int c) {
      return ColumnVector.ofLongs(c == 2 ? BIG : INT, values[c], nulls[c], rows);
    }

    ColumnBatch batch() {
      return new ColumnBatch(new ColumnVector[] {column(0), column(1), column(2)}, rows);
    }

    Long value(int c, int r) {
      return nulls[c] != null && nulls[c][r] ? null : values[c][r];
    }
  }

  private static Side side(Random random, int rows, int keyRange, double nullShare, long payloadBase) {
    long[][] values = new long[3][rows];
    boolean[][] nulls = new boolean[3][];
    for (int c = 0; c < 2; c++) {
      nulls[c] = new boolean[rows];
      for (int r = 0; r < rows; r++) {
        values[c][r] = random.nextInt(keyRange);
        nulls[c][r] = random.nextDouble() < nullShare;
        if (nulls[c][r]) {
          values[c][r] = 0;
        }
      }
    }
    for (int r = 0; r < rows; r++) {
      values[2][r] = payloadBase + r;
    }
    return new Side(values, nulls, rows);
  }

  /** An IndexedColumns over a side, as a pipeline breaker's output would be. */
  private static IndexedColumns indexed(Side side) {
    return new IndexedColumns() {
      @Override public int rows() {
        return side.rows();
      }

      @Override public List<ExprType> types() {
        return List.of(INT, INT, BIG);
      }

      @Override public ColumnVector column(int c) {
        return side.column(c);
      }

      @Override public ColumnVector gather(int c, int[] ids, int count) {
        return side.column(c).gatherOrNull(ids, count);
      }
    };
  }

  /** The residual "probe payload + build payload is odd", over the joined row (build first or not). */
  private static Expr oddSum(boolean buildFirst) {
    Expr probePayload = new Expr.Column(buildFirst ? 5 : 2, BIG);
    Expr buildPayload = new Expr.Column(buildFirst ? 2 : 5, BIG);
    Expr sum = new Expr.Arith(Expr.ArithOp.PLUS, probePayload, buildPayload, BIG);
    Expr half = new Expr.Arith(Expr.ArithOp.DIVIDE, sum, new Expr.Literal(2L, BIG), BIG);
    Expr twice = new Expr.Arith(Expr.ArithOp.TIMES, half, new Expr.Literal(2L, BIG), BIG);
    return new Expr.Compare(Expr.CompareOp.NE, sum, twice);
  }

  private static List<String> run(Side probe, Side build, JoinProbe.Kind kind, int[] keys, boolean buildFirst,
      Expr residual, int threads) {
    JoinProbe template = new JoinProbe(kind, keys, keyTypes(keys), keys, List.of(INT, INT, BIG), buildFirst, residual);
    PipelineStage stage = new PipelineStage.HashJoinProbe(bind(template, build, keys.length, threads));
    ColumnarPipeline pipeline = new ColumnarPipeline(List.of(INT, INT, BIG), List.of(stage));
    return rows(pipeline.runColumns(List.of(probe.batch()), threads, () -> false));
  }

  private static List<ExprType> keyTypes(int[] keys) {
    return Arrays.stream(keys).mapToObj(k -> INT).toList();
  }

  private static JoinProbe bind(JoinProbe template, Side build, int keys, int threads) {
    List<List<String>> noDictionaries = java.util.Collections.nCopies(keys, null);
    return template.bind(indexed(build), noDictionaries, noDictionaries, threads, () -> false);
  }

  private static List<String> reference(Side probe, Side build, JoinProbe.Kind kind, int[] keys, boolean buildFirst,
      boolean residual) {
    List<String> rows = new ArrayList<>();
    boolean[] buildMatched = new boolean[build.rows()];
    for (int p = 0; p < probe.rows(); p++) {
      boolean any = false;
      for (int b = 0; b < build.rows(); b++) {
        boolean equal = true;
        for (int key : keys) {
          Long x = probe.value(key, p);
          Long y = build.value(key, b);
          equal &= x != null && x.equals(y);
        }
        if (equal && residual && (probe.values()[2][p] + build.values()[2][b]) % 2 == 0) {
          equal = false;
        }
        if (equal) {
          any = true;
          buildMatched[b] = true;
          if (kind.projectsBuild()) {
            rows.add(buildFirst ? row(build, b) + row(probe, p) : row(probe, p) + row(build, b));
          }
        }
      }
      if ((kind == JoinProbe.Kind.LEFT || kind == JoinProbe.Kind.FULL) && !any) {
        rows.add(buildFirst ? "null,null,null," + row(probe, p) : row(probe, p) + "null,null,null,");
      } else if (kind == JoinProbe.Kind.SEMI && any || kind == JoinProbe.Kind.ANTI && !any) {
        rows.add(row(probe, p));
      }
    }
    for (int b = 0; b < build.rows() && kind.preservesBuild(); b++) {
      if (!buildMatched[b]) {
        rows.add(buildFirst ? row(build, b) + "null,null,null," : "null,null,null," + row(build, b));
      }
    }
    rows.sort(null);
    return rows;
  }

  private static String row(Side side, int r) {
    StringBuilder out = new StringBuilder();
    for (int c = 0; c < 3; c++) {
      out.append(side.value(c, r) == null ? "null" : String.valueOf(side.value(c, r))).append(',');
    }
    return out.toString();
  }

  @Test void everyKindMatchesANestedLoopOverRandomRows() {
    Random random = new Random(20261125);
    for (int round = 0; round < 24; round++) {
      int keyRange = round % 3 == 0 ? 50 : 400;
      Side probe = side(random, 300 + random.nextInt(900), keyRange, 0.05, 1);
      Side build = side(random, 1 + random.nextInt(700), keyRange, 0.05, 10_000);
      int[] keys = round % 2 == 0 ? new int[] {0} : new int[] {0, 1};
      for (JoinProbe.Kind kind : List.of(JoinProbe.Kind.INNER, JoinProbe.Kind.LEFT, JoinProbe.Kind.SEMI,
          JoinProbe.Kind.ANTI, JoinProbe.Kind.RIGHT, JoinProbe.Kind.FULL)) {
        for (boolean residual : new boolean[] {false, true}) {
          boolean buildFirst = kind.projectsBuild() && round % 4 == 1;
          String where = "round " + round + " " + kind + (residual ? " with residual" : "") + " keys "
              + Arrays.toString(keys) + (buildFirst ? " build first" : "");
          assertEquals(reference(probe, build, kind, keys, buildFirst, residual),
              run(probe, build, kind, keys, buildFirst, residual ? oddSum(buildFirst) : null, 1 + round % 3), where);
        }
      }
    }
  }

  /**
   * A semi- or anti-join that builds on its returned side: the probe marks build rows, and the marked (semi) or
   * unmarked (anti) build rows must be those a semi- or anti-join probing with the build side returns. Some
   * rounds stream many morsels on several workers, so that marks of one build row race.
   */
  @Test void markBuildMarksWhatASemiJoinFromTheBuildSideReturns() {
    Random random = new Random(20261126);
    for (int round = 0; round < 16; round++) {
      int keyRange = round % 3 == 0 ? 50 : 400;
      // a few rounds stream several morsels against a small build side (the reference is a nested loop)
      boolean manyMorsels = round % 8 == 7;
      Side probe = side(random, manyMorsels ? 2 * MorselScheduler.MORSEL_ROWS + 17 : 1 + random.nextInt(900),
          keyRange, 0.05, 1);
      Side build = side(random, 1 + random.nextInt(manyMorsels ? 40 : round % 5 == 0 ? 3000 : 700), keyRange, 0.05,
          10_000);
      int[] keys = round % 2 == 0 ? new int[] {0} : new int[] {0, 1};
      for (boolean residual : new boolean[] {false, true}) {
        JoinProbe template = new JoinProbe(JoinProbe.Kind.MARK_BUILD, keys, keyTypes(keys), keys,
            List.of(INT, INT, BIG), true, residual ? oddSum(true) : null);
        JoinProbe bound = bind(template, build, keys.length, 1 + round % 3);
        List<ColumnBatch> out = new ColumnarPipeline(List.of(INT, INT, BIG),
            List.of(new PipelineStage.HashJoinProbe(bound))).runColumns(List.of(probe.batch()), 1 + round % 3,
            () -> false);
        String where = "round " + round + (residual ? " with residual" : "") + " keys " + Arrays.toString(keys);
        assertTrue(out.isEmpty(), where + ": a marking probe passed rows on");
        for (boolean matched : new boolean[] {true, false}) {
          assertEquals(reference(build, probe, matched ? JoinProbe.Kind.SEMI : JoinProbe.Kind.ANTI, keys, false,
              residual), rows(build, bound.markedBuildRows(matched)), where + (matched ? " semi" : " anti"));
        }
      }
    }
  }

  /**
   * A join that preserves its build side (RIGHT, FULL) against the nested loop where the final source matters:
   * probe sides of several morsels on several workers (marks of one build row race, and a build row matched in one
   * morsel must not come out unmatched), empty probe or build sides, no key in common (every build row
   * unmatched), and stages after the probe (a filter over the NULL probe columns, then an aggregation) that the
   * unmatched build rows must pass through as the joined ones do.
   */
  @Test void preservedBuildRowsPassTheStagesAfterTheProbe() {
    Random random = new Random(20261127);
    for (int round = 0; round < 12; round++) {
      boolean manyMorsels = round % 4 == 3;
      int probeRows = round % 6 == 0 ? 0 : manyMorsels ? 2 * MorselScheduler.MORSEL_ROWS + 17 : 1 + random.nextInt(900);
      int buildRows = round % 6 == 1 ? 0 : 1 + random.nextInt(manyMorsels ? 60 : 700);
      Side probe = side(random, probeRows, manyMorsels ? 100 : 400, 0.05, 1);
      Side build = side(random, buildRows, 400, 0.05, 10_000);
      if (round % 6 == 2) {
        for (int r = 0; r < buildRows; r++) {
          build.values()[0][r] += 1000;  // keys no probe row has
        }
      }
      int[] keys = round % 2 == 0 ? new int[] {0} : new int[] {0, 1};
      int threads = 1 + round % 3;
      for (JoinProbe.Kind kind : List.of(JoinProbe.Kind.RIGHT, JoinProbe.Kind.FULL)) {
        for (boolean residual : new boolean[] {false, true}) {
          boolean buildFirst = round % 3 == 1;
          String where = "round " + round + " " + kind + (residual ? " with residual" : "") + " keys "
              + Arrays.toString(keys) + " " + probeRows + " x " + buildRows;
          List<String> expected = reference(probe, build, kind, keys, buildFirst, residual);
          assertEquals(expected, run(probe, build, kind, keys, buildFirst, residual ? oddSum(buildFirst) : null,
              threads), where);
          // COUNT(*) and SUM(build payload) of the rows whose probe payload is NULL or even: the filter and the
          // aggregation see the unmatched build rows with their NULL probe columns.
          int probePayload = buildFirst ? 5 : 2;
          int buildPayload = buildFirst ? 2 : 5;
          long count = 0;
          Long sum = null;
          for (String row : expected) {
            String[] v = row.split(",");
            if (v[probePayload].equals("null") || Long.parseLong(v[probePayload]) % 2 == 0) {
              count++;
              if (!v[buildPayload].equals("null")) {
                sum = (sum == null ? 0 : sum) + Long.parseLong(v[buildPayload]);
              }
            }
          }
          Expr payload = new Expr.Column(probePayload, BIG);
          Expr even = new Expr.Compare(Expr.CompareOp.EQ, new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Arith(
              Expr.ArithOp.DIVIDE, payload, new Expr.Literal(2L, BIG), BIG), new Expr.Literal(2L, BIG), BIG), payload);
          Expr kept = new Expr.Logical(false, List.of(new Expr.IsNull(payload, false), even));
          JoinProbe template = new JoinProbe(kind, keys, keyTypes(keys), keys, List.of(INT, INT, BIG), buildFirst,
              residual ? oddSum(buildFirst) : null);
          List<PipelineStage> stages = List.of(new PipelineStage.HashJoinProbe(bind(template, build, keys.length,
              threads)), new PipelineStage.Filter(kept), new PipelineStage.Aggregate(new int[0], List.of(
              new AggCall(AggCall.Kind.COUNT, -1, BIG), new AggCall(AggCall.Kind.SUM, buildPayload, BIG))));
          ColumnBatch out = new ColumnarPipeline(List.of(INT, INT, BIG), stages)
              .runColumns(List.of(probe.batch()), threads, () -> false).get(0);
          assertEquals(count, out.columns()[0].longs[0], where + " count");
          assertEquals(sum, out.columns()[1].isNull(0) ? null : out.columns()[1].longs[0],
              where + " sum");
        }
      }
    }
  }

  /**
   * A marking probe with several marks (semi- and anti-joins of one build side streamed as one): each mark must be
   * what a nested loop finds under its own condition (none; the residual; a probe-side filter and the residual, as a
   * filtered probe side folds in), and every combination of wanted marks the build rows that all of them keep. Some
   * rounds stream several morsels on several workers; keys and payloads have NULLs.
   */
  @Test void severalMarksKeepTheRowsThatEveryStackedJoinKeeps() {
    Random random = new Random(20261128);
    Expr probePayload = new Expr.Column(5, BIG);
    Expr third = new Expr.Arith(Expr.ArithOp.TIMES, new Expr.Arith(Expr.ArithOp.DIVIDE, probePayload,
        new Expr.Literal(3L, BIG), BIG), new Expr.Literal(3L, BIG), BIG);
    Expr probeFilter = new Expr.Compare(Expr.CompareOp.NE, probePayload, third);
    List<Expr> conditions = java.util.Arrays.asList(null, oddSum(true),
        new Expr.Logical(true, List.of(probeFilter, oddSum(true))));
    for (int round = 0; round < 12; round++) {
      boolean manyMorsels = round % 4 == 3;
      Side probe = side(random, manyMorsels ? 2 * MorselScheduler.MORSEL_ROWS + 17 : random.nextInt(900),
          round % 3 == 0 ? 50 : 400, 0.05, 1);
      Side build = side(random, random.nextInt(manyMorsels ? 40 : 700), 400, 0.05, 10_000);
      int[] keys = round % 2 == 0 ? new int[] {0} : new int[] {0, 1};
      int threads = 1 + round % 3;
      JoinProbe bound = bind(JoinProbe.marking(keys, keyTypes(keys), keys, List.of(INT, INT, BIG), conditions),
          build, keys.length, threads);
      List<ColumnBatch> out = new ColumnarPipeline(List.of(INT, INT, BIG),
          List.of(new PipelineStage.HashJoinProbe(bound))).runColumns(List.of(probe.batch()), threads, () -> false);
      assertTrue(out.isEmpty(), "a marking probe passed rows on");
      boolean[][] expected = new boolean[3][build.rows()];
      for (int b = 0; b < build.rows(); b++) {
        for (int p = 0; p < probe.rows(); p++) {
          boolean equal = true;
          for (int key : keys) {
            Long x = probe.value(key, p);
            equal &= x != null && x.equals(build.value(key, b));
          }
          long payload = probe.values()[2][p];
          boolean odd = (payload + build.values()[2][b]) % 2 != 0;
          expected[0][b] |= equal;
          expected[1][b] |= equal && odd;
          expected[2][b] |= equal && odd && payload % 3 != 0;
        }
      }
      for (int wanted = 0; wanted < 8; wanted++) {
        boolean[] marks = {(wanted & 1) != 0, (wanted & 2) != 0, (wanted & 4) != 0};
        List<Integer> kept = new ArrayList<>();
        for (int b = 0; b < build.rows(); b++) {
          if (expected[0][b] == marks[0] && expected[1][b] == marks[1] && expected[2][b] == marks[2]) {
            kept.add(b);
          }
        }
        assertEquals(kept, Arrays.stream(bound.markedBuildRows(marks)).boxed().toList(),
            "round " + round + " keys " + Arrays.toString(keys) + " marks " + Arrays.toString(marks));
      }
    }
  }

  /**
   * Told which marks are anti-joins' (their mark settles a build row: it is dropped), the probe leaves a settled row's
   * further candidates untested; the rows the stacked joins keep are still those a nested loop finds, for every mix of
   * semi- and anti-joins, on one worker and several.
   */
  @Test void rowsSettledByAnAntiJoinsMarkStillLeaveTheRowsTheJoinsKeep() {
    Random random = new Random(20261126);
    List<Expr> conditions = java.util.Arrays.asList(null, oddSum(true), new Expr.Not(oddSum(true)));
    for (int round = 0; round < 16; round++) {
      Side probe = side(random, round % 4 == 3 ? 2 * MorselScheduler.MORSEL_ROWS + 17 : random.nextInt(900), 300,
          0.05, 1);
      Side build = side(random, random.nextInt(700), 300, 0.05, 10_000);
      int[] keys = {0};
      boolean[] expectedKeep = new boolean[build.rows()];
      List<Boolean> semi = List.of((round & 1) != 0, (round & 2) != 0, (round & 4) != 0);
      for (int b = 0; b < build.rows(); b++) {
        boolean[] marked = new boolean[3];
        for (int p = 0; p < probe.rows(); p++) {
          Long x = probe.value(0, p);
          if (x == null || !x.equals(build.value(0, b))) {
            continue;
          }
          boolean odd = (probe.values()[2][p] + build.values()[2][b]) % 2 != 0;
          marked[0] = true;
          marked[1] |= odd;
          marked[2] |= !odd;
        }
        expectedKeep[b] = marked[0] == semi.get(0) && marked[1] == semi.get(1) && marked[2] == semi.get(2);
      }
      int threads = 1 + round % 3;
      JoinProbe bound = bind(JoinProbe.marking(keys, keyTypes(keys), keys, List.of(INT, INT, BIG), conditions, semi),
          build, 1, threads);
      new ColumnarPipeline(List.of(INT, INT, BIG), List.of(new PipelineStage.HashJoinProbe(bound)))
          .runColumns(List.of(probe.batch()), threads, () -> false);
      List<Integer> kept = new ArrayList<>();
      for (int b = 0; b < build.rows(); b++) {
        if (expectedKeep[b]) {
          kept.add(b);
        }
      }
      boolean[] wanted = {semi.get(0), semi.get(1), semi.get(2)};
      assertEquals(kept, Arrays.stream(bound.markedBuildRows(wanted)).boxed().toList(), "round " + round + " " + semi);
    }
  }

  /**
   * A marking probe bound to its rows alone (for a GPU pipeline that builds its own table) has no table until the CPU
   * probes: then {@code withTable} builds one, once, whose marks are the rows-only probe's. What the GPU hands back
   * and what the CPU marks through that table both reach the rows-only probe the mark join reads.
   */
  @Test void aProbeBoundToItsRowsBuildsItsTableOnlyWhenTheCpuProbes() {
    Random random = new Random(20261127);
    for (int round = 0; round < 6; round++) {
      Side probe = side(random, round == 5 ? 2 * MorselScheduler.MORSEL_ROWS + 17 : random.nextInt(900), 300, 0.05, 1);
      Side build = side(random, 1 + random.nextInt(700), 300, 0.05, 10_000);
      int[] keys = {0};
      List<List<String>> noDictionaries = java.util.Collections.nCopies(1, null);
      JoinProbe template = JoinProbe.marking(keys, keyTypes(keys), keys, List.of(INT, INT, BIG),
          java.util.Arrays.asList((Expr) null));
      JoinProbe rowsOnly = template.bindRows(indexed(build), noDictionaries, noDictionaries);
      assertNull(rowsOnly.table(), "a probe bound to its rows built a table");
      assertEquals(build.rows(), rowsOnly.build().rows());
      IllegalStateException unbuilt = assertThrows(IllegalStateException.class,
          () -> rowsOnly.cursor(null, 0, 3));
      assertTrue(unbuilt.getMessage().contains("withTable"), unbuilt.getMessage());
      // the GPU's marks: build row 0 matched
      byte[] gpuMarks = new byte[build.rows()];
      gpuMarks[0] = 1;
      rowsOnly.markBuildRows(gpuMarks);
      int threads = 1 + round % 3;
      JoinProbe tabled = rowsOnly.withTable(threads, () -> false);
      assertSame(tabled, rowsOnly.withTable(threads, () -> false), "the table was built twice");
      assertNotNull(tabled.table());
      new ColumnarPipeline(List.of(INT, INT, BIG), List.of(new PipelineStage.HashJoinProbe(tabled)))
          .runColumns(List.of(probe.batch()), threads, () -> false);
      List<Integer> expected = new ArrayList<>();
      for (int b = 0; b < build.rows(); b++) {
        boolean matched = b == 0;
        for (int p = 0; p < probe.rows() && !matched; p++) {
          Long x = probe.value(0, p);
          matched = x != null && x.equals(build.value(0, b));
        }
        if (matched) {
          expected.add(b);
        }
      }
      assertEquals(expected, Arrays.stream(rowsOnly.markedBuildRows(true)).boxed().toList(), "round " + round);
      assertEquals(expected, Arrays.stream(tabled.markedBuildRows(true)).boxed().toList(), "round " + round);
    }
    JoinProbe inner = new JoinProbe(JoinProbe.Kind.INNER, new int[] {0}, List.of(INT), new int[] {0},
        List.of(INT, INT, BIG), false, null);
    assertThrows(IllegalArgumentException.class, () -> inner.bindRows(indexed(side(random, 3, 10, 0, 1)),
        java.util.Collections.nCopies(1, null), java.util.Collections.nCopies(1, null)));
  }

  /**
   * Two marks (Q21's EXISTS and NOT EXISTS, set by a GPU pipeline's bytes): every combination of wanted marks keeps
   * the build rows whose two marks are as wanted, in order.
   */
  @Test void twoMarksKeepTheRowsWhoseMarksAreAsWanted() {
    Random random = new Random(20261127);
    Side build = side(random, 5000, 300, 0.05, 10_000);
    int[] keys = {0};
    JoinProbe bound = bind(JoinProbe.marking(keys, keyTypes(keys), keys, List.of(INT, INT, BIG),
        java.util.Arrays.asList(null, oddSum(true))), build, 1, 2);
    byte[] marked = new byte[2 * build.rows()];
    for (int i = 0; i < marked.length; i++) {
      marked[i] = (byte) (random.nextInt(3) == 0 ? 1 : 0);
    }
    bound.markBuildRows(marked);
    for (int wanted = 0; wanted < 4; wanted++) {
      boolean first = (wanted & 1) != 0;
      boolean second = (wanted & 2) != 0;
      List<Integer> expected = new ArrayList<>();
      for (int r = 0; r < build.rows(); r++) {
        if ((marked[r] != 0) == first && (marked[build.rows() + r] != 0) == second) {
          expected.add(r);
        }
      }
      assertEquals(expected, Arrays.stream(bound.markedBuildRows(new boolean[] {first, second})).boxed().toList(),
          "wanted " + first + ", " + second);
    }
  }

  @Test void aMarkingProbeMustEndItsPipeline() {
    int[] key = {0};
    JoinProbe mark = new JoinProbe(JoinProbe.Kind.MARK_BUILD, key, keyTypes(key), key, List.of(INT, INT, BIG), true,
        null);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new ColumnarPipeline(List.of(INT, INT, BIG), List.of(new PipelineStage.HashJoinProbe(mark),
            new PipelineStage.Project(List.of()))));
    assertTrue(e.getMessage().contains("must end its pipeline"), e.getMessage());
    IllegalStateException unbound = assertThrows(IllegalStateException.class,
        () -> mark.markedBuildRows(true));
    assertTrue(unbound.getMessage().contains("before the build side was bound"), unbound.getMessage());
  }

  private static List<String> rows(Side side, int[] ids) {
    List<String> out = new ArrayList<>();
    for (int id : ids) {
      out.add(row(side, id));
    }
    out.sort(null);
    return out;
  }

  @Test void uniqueDenseKeysUseTheDirectTableAndOthersTheUnchainedOne() {
    long[] dense = new long[1000];
    for (int i = 0; i < dense.length; i++) {
      dense[i] = 5000 + (i * 7L) % 1000;
    }
    assertTrue(JoinHashTable.build(dense, null, dense.length, 2, () -> false).direct());
    long[] validity = {-1L, -1L, -1L, -1L, -1L, -1L, -1L, -1L, -1L, -1L, -1L, -1L, -1L, -1L, -1L, -1L};
    validity[0] &= ~1L;  // row 0 NULL: its key is left out
    assertEquals(-1, JoinHashTable.build(dense, validity, dense.length, 2, () -> false).first(dense[0]));
    long[] duplicate = dense.clone();
    duplicate[999] = duplicate[0];
    JoinHashTable unchained = JoinHashTable.build(duplicate, null, duplicate.length, 2, () -> false);
    assertFalse(unchained.direct());
    int first = unchained.row(unchained.first(duplicate[0]));
    int second = unchained.row(unchained.next(unchained.first(duplicate[0])));
    assertEquals(List.of(0, 999), Arrays.asList(Math.min(first, second), Math.max(first, second)));
    assertEquals(-1, unchained.next(unchained.next(unchained.first(duplicate[0]))));
    assertEquals(-1, unchained.first(4999));
  }

  @Test void batchedFirstsEqualOneByOne() {
    Random random = new Random(3);
    for (int range : new int[] {1500, 1 << 20}) {  // dense unique keys (direct table) and sparse ones (unchained)
      long[] build = new long[1000];
      for (int i = 0; i < build.length; i++) {
        build[i] = range == 1500 ? i + 7 : random.nextInt(range);
      }
      long[] validity = new long[(build.length + 63) / 64];
      Arrays.fill(validity, -1L);
      validity[1] = 0;  // rows 64..127 NULL
      JoinHashTable table = JoinHashTable.build(build, validity, build.length, 2, () -> false);
      assertEquals(range == 1500, table.direct());
      long[] probe = new long[700];
      for (int i = 0; i < probe.length; i++) {
        probe[i] = random.nextBoolean() ? build[random.nextInt(build.length)] : random.nextInt(range + 10);
      }
      int[] out = new int[100];
      table.firsts(probe, null, 600, 700, out);
      for (int r = 600; r < 700; r++) {
        assertEquals(table.first(probe[r]), out[r - 600], "key " + probe[r]);
      }
      table.firsts(probe, validity, 50, 150, out);
      for (int r = 50; r < 150; r++) {
        assertEquals(r >= 64 && r < 128 ? -1 : table.first(probe[r]), out[r - 50], "row " + r);
      }
    }
  }

  @Test void aMorselWhoseKeysMatchManyRowsIsCutIntoParts() {
    Random random = new Random(7);
    Side probe = side(random, 2000, 1, 0, 1);    // every probe row has key 0 ...
    Side build = side(random, 300, 1, 0, 10_000); // ... and so has every build row: 600,000 pairs
    ExprType count = ExprType.INT64;
    int[] key = {0};
    JoinProbe template = new JoinProbe(JoinProbe.Kind.INNER, key, keyTypes(key), key, List.of(INT, INT, BIG), false,
        null);
    List<PipelineStage> stages = List.of(new PipelineStage.HashJoinProbe(bind(template, build, 1, 2)),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.COUNT, -1, count),
            new AggCall(AggCall.Kind.SUM, 5, BIG))));
    List<ColumnBatch> out = new ColumnarPipeline(List.of(INT, INT, BIG), stages)
        .runColumns(List.of(probe.batch()), 2, () -> false);
    long sumOfBuildPayloads = 0;
    for (int b = 0; b < build.rows(); b++) {
      sumOfBuildPayloads += build.values()[2][b];
    }
    assertEquals(600_000L, out.get(0).columns()[0].longs[0]);
    assertEquals(sumOfBuildPayloads * probe.rows(), out.get(0).columns()[1].longs[0]);
  }

  /**
   * Two probes in one pipeline nest their cursors on each worker, and every cursor reuses its thread's pair buffers
   * from one run of probe rows and one morsel to the next: the chained pipeline must return what running the
   * probes one pipeline after the other returns.
   */
  @Test void chainedProbesReturnWhatTheyReturnOneAfterTheOther() {
    Random random = new Random(20261127);
    Side probe = side(random, 100_000, 300, 0.02, 1);
    Side first = side(random, 500, 300, 0.02, 10_000);
    Side second = side(random, 400, 300, 0.02, 20_000);
    int[] key = {0};
    JoinProbe firstProbe = bind(new JoinProbe(JoinProbe.Kind.INNER, key, keyTypes(key), key, List.of(INT, INT, BIG),
        false, oddSum(false)), first, 1, 2);
    List<ExprType> joinedTypes = List.of(INT, INT, BIG, INT, INT, BIG);
    int[] onProbeColumn1 = {1};
    JoinProbe secondProbe = bind(new JoinProbe(JoinProbe.Kind.LEFT, onProbeColumn1, keyTypes(onProbeColumn1), key,
        List.of(INT, INT, BIG), false, null), second, 1, 2);
    List<ColumnBatch> chained = new ColumnarPipeline(List.of(INT, INT, BIG),
        List.of(new PipelineStage.HashJoinProbe(firstProbe), new PipelineStage.HashJoinProbe(secondProbe)))
        .runColumns(List.of(probe.batch()), 2, () -> false);
    List<ColumnBatch> firstOnly = new ColumnarPipeline(List.of(INT, INT, BIG),
        List.of(new PipelineStage.HashJoinProbe(firstProbe))).runColumns(List.of(probe.batch()), 2, () -> false);
    List<ColumnBatch> stepwise = new ColumnarPipeline(joinedTypes, List.of(new PipelineStage.HashJoinProbe(secondProbe)))
        .runColumns(firstOnly, 2, () -> false);
    List<String> expected = rows(stepwise);
    assertTrue(expected.size() > 10_000, "the probes should match many rows, matched " + expected.size());
    assertEquals(expected, rows(chained));
  }

  /** Every row of the batches as text, sorted. */
  private static List<String> rows(List<ColumnBatch> batches) {
    List<String> rows = new ArrayList<>();
    for (ColumnBatch b : batches) {
      for (int r = 0; r < b.rows(); r++) {
        StringBuilder row = new StringBuilder();
        for (ColumnVector v : b.columns()) {
          row.append(v.isNull(r) ? "null" : String.valueOf(v.longs[r])).append(',');
        }
        rows.add(row.toString());
      }
    }
    rows.sort(null);
    return rows;
  }
}
