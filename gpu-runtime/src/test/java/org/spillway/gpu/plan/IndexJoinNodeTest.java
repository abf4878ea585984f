package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * The index join node over a table of several Arrow batches: every index kind and join kind against a nested-loop
 * reference, with the indexed side's filter applied after the lookup, the indexed side on either side of the output;
 * and the {@link TableIndex} it joins through: keys of each width, bad keys named by row, memory freed on close but
 * only once the last join released it.
 */
class IndexJoinNodeTest {
  private static final int BATCH = 7;
  private final BufferAllocator root = new RootAllocator();
  private final List<VectorSchemaRoot> batches = new ArrayList<>();

  @AfterEach void free() {
    batches.forEach(VectorSchemaRoot::close);
    root.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"BINARY_SEARCH", "BTREE", "HARMONIA", "RADIXSPLINE"})
  void joinsLikeANestedLoopJoinWithTheFilterAfterTheLookup(String kind) {
    Random random = new Random(29);
    long[] keys = new long[40];
    long[] payload = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i * 3L - 20;  // sorted, unique, some negative; rows reached through the index only
      payload[i] = random.nextInt(10);
    }
    ScanTable table = table(keys, payload);
    long[][] probe = new long[200][];
    for (int r = 0; r < probe.length; r++) {
      probe[r] = new long[] {random.nextInt(10) == 0 ? Long.MIN_VALUE : random.nextInt(140) - 30, r};
    }
    // payload < 5
    Expr filter = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(0, ExprType.INT64),
        new Expr.Literal(5L, ExprType.INT64));
    try (TableIndex index = TableIndex.build("t_key", table.batches(), 0, kind, root.newChildAllocator("index", 0,
        Long.MAX_VALUE), 2)) {
      for (JoinKind joinKind : List.of(JoinKind.INNER, JoinKind.LEFT, JoinKind.SEMI, JoinKind.ANTI)) {
        for (Expr f : new Expr[] {null, filter}) {
          for (boolean indexedLeft : joinKind == JoinKind.SEMI || joinKind == JoinKind.ANTI ? List.of(false)
              : List.of(false, true)) {
            String where = kind + " " + joinKind + (f == null ? "" : " filtered") + (indexedLeft ? " left" : "");
            // the output reads the payload only; the filter reads it as its column 0
            IndexJoinNode node = new IndexJoinNode(source(probe), 0, new IndexJoinNode.IndexedSide(table,
                new int[] {1}, List.of(ExprType.INT64), index::acquire, f, new int[] {1}, List.of(ExprType.INT64)),
                joinKind, indexedLeft, 5 * Long.BYTES, false, DeviceRuns.NONE, "test join");
            assertEquals(reference(probe, keys, payload, joinKind, f != null, indexedLeft),
                rows(node.run(new RunContext(2, () -> false))), where);
          }
        }
      }
    }
  }

  @Test void aGpuJoinWithoutADeviceRunsOnTheCpuAndSaysWhy() {
    Assumptions.assumeTrue(GpuRuntime.device().isEmpty(), "this machine has a GPU: TableIndexGpuTest covers it");
    long[] keys = {1, 4, 9};
    ScanTable table = table(keys, new long[] {10, 40, 90});
    long[][] probe = {{4, 0}, {5, 1}, {9, 2}};
    try (TableIndex index = TableIndex.build("t_key", table.batches(), 0, "RADIXSPLINE", root.newChildAllocator(
        "index", 0, Long.MAX_VALUE), 1)) {
      IndexJoinNode node = new IndexJoinNode(source(probe), 0, new IndexJoinNode.IndexedSide(table, new int[] {1},
          List.of(ExprType.INT64), index::acquire, null, null, null), JoinKind.INNER, false,
          IndexJoinNode.DEFAULT_WINDOW_BYTES, true, DeviceRuns.NONE, "test join");
      RunContext context = new RunContext(1, () -> false);
      assertEquals(List.of("4|0|40", "9|2|90"), rows(node.run(context)));
      assertEquals("gpu, fell back to cpu: " + GpuRuntime.unavailableReason(),
          context.reports().list().get(0).execution().device());
    }
  }

  @Test void theIndexCopiesKeysOfEachWidthInStoredOrderAndReportsItsSize() {
    IntVector ints = new IntVector("i", root);
    DateDayVector days = new DateDayVector("d", root);
    batches.add(batchOf(fill(ints, 1, 5, 9)));
    batches.add(batchOf(fill(days, 10, 11)));
    long before = root.getAllocatedMemory();
    try (TableIndex index = TableIndex.build("t_i", List.of(batches.get(0), batches.get(1)), 0, "HARMONIA",
        root.newChildAllocator("index", 0, Long.MAX_VALUE), 2)) {
      assertEquals(5, index.rows());
      assertEquals("HARMONIA", index.kind());
      assertTrue(index.sizeBytes() >= 5 * Long.BYTES, index.describe());
      assertEquals(2, index.acquire().index().lookup(9));
      assertEquals(4, index.index().lookup(11));
      assertEquals(-1, index.index().lookup(6));
      index.release();
    }
    assertEquals(before, root.getAllocatedMemory(), "the index's memory is freed");
  }

  @Test void badKeysNameTheirRowAndLeaveNoMemoryBehind() {
    BigIntVector withNull = fill(new BigIntVector("k", root), 7, 8);
    withNull.setNull(1);
    batches.add(batchOf(fill(new BigIntVector("k", root), 1, 2, 3)));
    batches.add(batchOf(fill(new BigIntVector("k", root), 4, 4, 5)));
    batches.add(batchOf(fill(new BigIntVector("k", root), 6, 2)));
    batches.add(batchOf(withNull));
    long tables = root.getAllocatedMemory();
    var duplicate = assertThrows(TableIndex.BadKeysException.class, () -> TableIndex.build("x",
        batches.subList(0, 2), 0, "BTREE", root.newChildAllocator("i", 0, Long.MAX_VALUE), 2));
    assertEquals(4, duplicate.row());
    assertEquals(TableIndex.BadKeysException.Problem.DUPLICATE, duplicate.problem());
    var unsorted = assertThrows(TableIndex.BadKeysException.class, () -> TableIndex.build("x",
        List.of(batches.get(0), batches.get(2)), 0, "RADIXSPLINE", root.newChildAllocator("i", 0, Long.MAX_VALUE), 2));
    assertEquals(4, unsorted.row());
    assertEquals(TableIndex.BadKeysException.Problem.UNSORTED, unsorted.problem());
    var nullKey = assertThrows(TableIndex.BadKeysException.class, () -> TableIndex.build("x",
        List.of(batches.get(0), batches.get(3)), 0, "BINARY_SEARCH", root.newChildAllocator("i", 0, Long.MAX_VALUE),
        2));
    assertEquals(4, nullKey.row());
    assertEquals(TableIndex.BadKeysException.Problem.NULL, nullKey.problem());
    assertEquals(tables, root.getAllocatedMemory(), "no index memory left behind");
  }

  @Test void closingFreesOnlyOnceTheLastJoinReleased() {
    batches.add(batchOf(fill(new BigIntVector("k", root), 1, 2, 3)));
    long tables = root.getAllocatedMemory();
    BufferAllocator allocator = root.newChildAllocator("index", 0, Long.MAX_VALUE);
    TableIndex index = TableIndex.build("t_k", batches, 0, "BTREE", allocator, 1);
    index.acquire();
    index.close();
    assertTrue(allocator.getAllocatedMemory() > 0, "a join still uses it");
    assertEquals(1, index.index().lookup(2));
    assertThrows(IllegalStateException.class, index::acquire, "a dropped index is not handed out again");
    index.release();
    assertEquals(tables, root.getAllocatedMemory(), "freed after the last");
    assertThrows(IllegalStateException.class, index::release);
  }

  @Test void aSemiJoinKeepsItsIndexedSideRight() {
    assertThrows(IllegalArgumentException.class, () -> new IndexJoinNode(source(new long[0][]), 0,
        new IndexJoinNode.IndexedSide(null, new int[0], List.of(), null, null, null, null), JoinKind.SEMI, true, 8,
        false, DeviceRuns.NONE, "x"));
  }

  /** What each probe row outputs; probe row ids in order, matched build rows as key/payload. */
  private static List<String> reference(long[][] probe, long[] keys, long[] payload, JoinKind kind, boolean filter,
      boolean indexedLeft) {
    Map<Long, Integer> rowOf = new HashMap<>();
    for (int i = 0; i < keys.length; i++) {
      rowOf.put(keys[i], i);
    }
    List<String> out = new ArrayList<>();
    for (long[] p : probe) {
      Integer row = p[0] == Long.MIN_VALUE ? null : rowOf.get(p[0]);
      if (row != null && filter && payload[row] >= 5) {
        row = null;
      }
      String probeText = text(p[0]) + "|" + p[1];
      String buildText = row == null ? "null" : Long.toString(payload[row]);
      switch (kind) {
        case SEMI -> { if (row != null) { out.add(probeText); } }
        case ANTI -> { if (row == null) { out.add(probeText); } }
        case LEFT -> out.add(indexedLeft ? buildText + "|" + probeText : probeText + "|" + buildText);
        default -> {
          if (row != null) {
            out.add(indexedLeft ? buildText + "|" + probeText : probeText + "|" + buildText);
          }
        }
      }
    }
    return out;
  }

  private static String text(long value) {
    return value == Long.MIN_VALUE ? "null" : Long.toString(value);
  }

  private static List<String> rows(NodeOutput output) {
    List<ColumnVector> columns = new ArrayList<>();
    for (int c = 0; c < output.types().size(); c++) {
      columns.add(output.column(c));
    }
    List<String> out = new ArrayList<>();
    for (int r = 0; r < output.rows(); r++) {
      StringBuilder row = new StringBuilder();
      for (ColumnVector column : columns) {
        row.append(row.length() == 0 ? "" : "|").append(column.isNull(r) ? "null" : Long.toString(column.longs[r]));
      }
      out.add(row.toString());
    }
    return out;
  }

  /** A probe side of (key, row number) rows; key {@code Long.MIN_VALUE} is NULL. */
  private static PlanNode source(long[][] rows) {
    return new PlanNode() {
      @Override public List<ExprType> types() {
        return List.of(ExprType.INT64, ExprType.INT64);
      }

      @Override public NodeOutput run(RunContext context) {
        return new BatchOutput(List.of(new ColumnBatch(new ColumnVector[] {column(rows, 0), column(rows, 1)},
            rows.length)), types());
      }
    };
  }

  private static ColumnVector column(long[][] rows, int c) {
    long[] values = new long[rows.length];
    boolean[] nulls = new boolean[rows.length];
    for (int r = 0; r < rows.length; r++) {
      nulls[r] = rows[r][c] == Long.MIN_VALUE;
      values[r] = nulls[r] ? 0 : rows[r][c];
    }
    return ColumnVector.ofLongs(ExprType.INT64, values, nulls, rows.length);
  }

  /** A table of (key, payload) in batches of {@link #BATCH} rows. */
  private ScanTable table(long[] keys, long[] payload) {
    for (int from = 0; from < keys.length; from += BATCH) {
      int to = Math.min(keys.length, from + BATCH);
      BigIntVector k = new BigIntVector("k", root);
      BigIntVector p = new BigIntVector("p", root);
      k.allocateNew(to - from);
      p.allocateNew(to - from);
      for (int i = from; i < to; i++) {
        k.set(i - from, keys[i]);
        p.set(i - from, payload[i]);
      }
      k.setValueCount(to - from);
      p.setValueCount(to - from);
      batches.add(new VectorSchemaRoot(List.of(k, p)));
    }
    return new ScanTable() {
      @Override public List<VectorSchemaRoot> batches() {
        return batches;
      }

      @Override public long rowCount() {
        return keys.length;
      }

      @Override public String name() {
        return "t";
      }

      @Override public DeviceRuns deviceRuns() {
        return DeviceRuns.NONE;
      }
    };
  }

  private static VectorSchemaRoot batchOf(FieldVector vector) {
    return new VectorSchemaRoot(List.of(vector));
  }

  private static BigIntVector fill(BigIntVector vector, long... values) {
    vector.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      vector.set(i, values[i]);
    }
    vector.setValueCount(values.length);
    return vector;
  }

  private static IntVector fill(IntVector vector, int... values) {
    vector.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      vector.set(i, values[i]);
    }
    vector.setValueCount(values.length);
    return vector;
  }

  private static DateDayVector fill(DateDayVector vector, int... values) {
    vector.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      vector.set(i, values[i]);
    }
    vector.setValueCount(values.length);
    return vector;
  }
}
