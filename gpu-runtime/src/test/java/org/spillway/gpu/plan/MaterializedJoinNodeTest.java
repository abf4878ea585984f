package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * The engine's materialized join node on the CPU joins, against a nested-loop reference on random keys with
 * NULLs and duplicates: every join type it runs, built on either side, with its output read as columns or only
 * counted.
 */
class MaterializedJoinNodeTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT64, ExprType.INT64);

  @Test void cpuJoinsMatchANestedLoopJoin() {
    Random random = new Random(13);
    for (int round = 0; round < 10; round++) {
      long[][] left = side(random, random.nextInt(300));
      long[][] right = side(random, random.nextInt(300));
      for (JoinChoice.Algorithm algorithm : List.of(JoinChoice.Algorithm.CPU_NOPA, JoinChoice.Algorithm.CPU_RADIX)) {
        for (JoinKind type : List.of(JoinKind.INNER, JoinKind.LEFT, JoinKind.SEMI, JoinKind.ANTI)) {
          // semi- and anti-joins return their left rows, which they probe with (the adapter builds on the right)
          for (boolean buildLeft : type == JoinKind.SEMI || type == JoinKind.ANTI ? List.of(false)
              : List.of(false, true)) {
            String where = "round " + round + ", " + algorithm + " " + type + (buildLeft ? " built left" : "");
            MaterializedJoinNode node = join(left, right, type, new JoinChoice(algorithm, buildLeft, null));
            List<String> expected = reference(left, right, type, buildLeft);
            RunContext context = new RunContext(2, () -> false);
            assertEquals(expected, rows(node.run(context)), where);
            assertEquals(expected.size(), node.run(context, new BitSet()).rows(), where + ", counted");
          }
        }
      }
    }
  }

  @Test void aChoiceOfTheGpuNeedsAJoinConfigurationAndACpuChoiceNone() {
    assertThrows(IllegalArgumentException.class, () -> new JoinChoice(JoinChoice.Algorithm.GPU, false, null));
    assertThrows(IllegalArgumentException.class, () -> new JoinChoice(JoinChoice.Algorithm.CPU_NOPA, false,
        new GpuJoinSpec(GpuJoinSpec.Algorithm.NOPA, null, 0, 0, 0, null)));
  }

  /** The materialized joins preserve only their probe side: the kinds that keep or mark build rows fail early. */
  @Test void kindsThatKeepOrMarkBuildRowsAreNoMaterializedJoin() {
    for (JoinKind kind : List.of(JoinKind.RIGHT, JoinKind.FULL, JoinKind.MARK_BUILD)) {
      assertThrows(IllegalArgumentException.class,
          () -> join(new long[0][], new long[0][], kind, JoinChoice.cpu(JoinChoice.Algorithm.CPU_NOPA, false)));
    }
  }

  /** Rows of a key (NULL where the entry is {@code Long.MIN_VALUE}) and a payload: few distinct keys. */
  private static long[][] side(Random random, int rows) {
    long[][] out = new long[rows][];
    for (int r = 0; r < rows; r++) {
      out[r] = new long[] {random.nextInt(8) == 0 ? Long.MIN_VALUE : random.nextInt(40), random.nextInt()};
    }
    return out;
  }

  private static MaterializedJoinNode join(long[][] left, long[][] right, JoinKind type, JoinChoice choice) {
    return new MaterializedJoinNode(source(left), source(right), new EquiJoinKeys(new int[] {0}, new int[] {0},
        List.of(ExprType.INT64), List.of(ExprType.INT64), Collections.singletonList(null),
        Collections.singletonList(null)), type, choice, DeviceRuns.NONE, "test join");
  }

  private static PlanNode source(long[][] rows) {
    return new PlanNode() {
      @Override public List<ExprType> types() {
        return TYPES;
      }

      @Override public NodeOutput run(RunContext context) {
        ColumnVector[] columns = new ColumnVector[TYPES.size()];
        for (int c = 0; c < columns.length; c++) {
          long[] values = new long[rows.length];
          boolean[] nulls = new boolean[rows.length];
          for (int r = 0; r < rows.length; r++) {
            nulls[r] = rows[r][c] == Long.MIN_VALUE;
            values[r] = nulls[r] ? 0 : rows[r][c];
          }
          columns[c] = ColumnVector.ofLongs(ExprType.INT64, values, nulls, rows.length);
        }
        return new BatchOutput(List.of(new ColumnBatch(columns, rows.length)), TYPES);
      }
    };
  }

  private static List<String> rows(NodeOutput output) {
    List<ColumnVector> columns = new ArrayList<>();
    for (int c = 0; c < output.types().size(); c++) {
      columns.add(output.column(c));
    }
    List<String> out = new ArrayList<>();
    for (int r = 0; r < output.rows(); r++) {
      StringBuilder row = new StringBuilder();
      for (int c = 0; c < columns.size(); c++) {
        ColumnVector column = columns.get(c);
        row.append(c == 0 ? "" : ",").append(column.isNull(r) ? "null" : Long.toString(column.longs[r]));
      }
      out.add(row.toString());
    }
    Collections.sort(out);
    return out;
  }

  /**
   * The join by nested loops: INNER pairs equal non-NULL keys; LEFT keeps every row of the probe side (the
   * side not built on) with NULLs for the other; SEMI and ANTI return the left rows with and without a match.
   */
  private static List<String> reference(long[][] left, long[][] right, JoinKind type, boolean buildLeft) {
    List<String> out = new ArrayList<>();
    if (type == JoinKind.SEMI || type == JoinKind.ANTI) {
      for (long[] l : left) {
        boolean matched = false;
        for (long[] r : right) {
          matched |= matches(l, r);
        }
        if (matched == (type == JoinKind.SEMI)) {
          out.add(text(l));
        }
      }
    } else {
      for (long[] l : left) {
        for (long[] r : right) {
          if (matches(l, r)) {
            out.add(text(l) + "," + text(r));
          }
        }
      }
      if (type == JoinKind.LEFT) {
        for (long[] p : buildLeft ? right : left) {
          boolean matched = false;
          for (long[] b : buildLeft ? left : right) {
            matched |= matches(p, b);
          }
          if (!matched) {
            out.add(buildLeft ? "null,null," + text(p) : text(p) + ",null,null");
          }
        }
      }
    }
    Collections.sort(out);
    return out;
  }

  private static boolean matches(long[] a, long[] b) {
    return a[0] != Long.MIN_VALUE && a[0] == b[0];
  }

  private static String text(long[] row) {
    return (row[0] == Long.MIN_VALUE ? "null" : Long.toString(row[0])) + "," + row[1];
  }
}
