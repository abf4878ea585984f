package org.spillway.adapter;

import org.spillway.gpu.plan.EquiJoinKeys;
import org.spillway.gpu.plan.JoinChoice;
import org.spillway.gpu.plan.MaterializedJoinNode;
import org.spillway.gpu.plan.NodeOutput;
import org.spillway.gpu.plan.PlanNode;
import org.spillway.gpu.plan.RunContext;
import org.spillway.gpu.plan.ScanNode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.schema.SchemaPlus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.gpu.plan.JoinKind;
import org.spillway.gpu.vector.ExprType;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TableWriter;

/** The join node at run time: an outer join's missing side reads as NULL, and a cancelled query stops. */
class MaterializedJoinNodeTest {
  @TempDir static Path dir;
  private static SpillwayTable left;
  private static SpillwayTable right;

  @BeforeAll static void createTables() {
    Catalog catalog = CatalogRegistry.open(dir);
    write(catalog, "l", new int[] {1, 2, 2, 3, 4}, new long[] {10, 20, 21, 30, 40});
    write(catalog, "r", new int[] {2, 4, 4, 5}, new long[] {200, 400, 401, 500});
    SpillwayDeviceUsage usage = new SpillwayDeviceUsage();
    left = new SpillwayTable(catalog, "l", SpillwayOptions.of(SpillwayDevice.CPU), usage);
    right = new SpillwayTable(catalog, "r", SpillwayOptions.of(SpillwayDevice.CPU), usage);
  }

  @AfterAll static void closeCatalogs() {
    CatalogRegistry.close(dir);
  }

  private static void write(Catalog catalog, String name, int[] keys, long[] values) {
    try (TableWriter writer = catalog.createTable(name, new TableSchema(List.of(
        new ColumnDef("k", ColumnType.integer()), new ColumnDef("v", ColumnType.bigint()))))) {
      // Two batches, so that row ids cross a batch boundary.
      for (int start = 0; start < keys.length; start += 3) {
        int n = Math.min(3, keys.length - start);
        BatchBuilder batch = writer.newBatch(n);
        for (int r = 0; r < n; r++) {
          batch.setInt(0, r, keys[start + r]);
          batch.setLong(1, r, values[start + r]);
        }
        batch.setRowCount(n);
        writer.append(batch);
      }
      writer.commit();
    }
  }

  /** A join built on the right side, so that the left side is the probe side that LEFT preserves. */
  private static MaterializedJoinNode join(JoinKind type, JoinChoice.Algorithm algorithm) {
    List<ExprType> types = List.of(ExprType.INT32, ExprType.INT64);
    return new MaterializedJoinNode(new ScanNode(left, new int[] {0, 1}, types),
        new ScanNode(right, new int[] {0, 1}, types),
        new EquiJoinKeys(new int[] {0}, new int[] {0}, List.of(ExprType.INT32), List.of(ExprType.INT32),
            Collections.singletonList(null), Collections.singletonList(null)), type,
        new JoinChoice(algorithm, false, null), new SpillwayDeviceUsage(), "test join");
  }

  private static List<String> rows(PlanNode node, AtomicBoolean cancel) {
    List<SpillwayField> output = node.types().stream().map(SpillwayField::of).toList();
    Enumerator<Object> rows = new SpillwayQueryPlan(node, output).execute(context(cancel), false).enumerator();
    List<String> out = new ArrayList<>();
    while (rows.moveNext()) {
      out.add(Arrays.toString((Object[]) rows.current()));
    }
    return out.stream().sorted().toList();
  }

  @Test void leftJoinKeepsUnmatchedLeftRowsWithNulls() {
    for (JoinChoice.Algorithm algorithm : List.of(JoinChoice.Algorithm.CPU_NOPA, JoinChoice.Algorithm.CPU_RADIX)) {
      assertEquals(List.of("[1, 10, null, null]", "[2, 20, 2, 200]", "[2, 21, 2, 200]", "[3, 30, null, null]",
          "[4, 40, 4, 400]", "[4, 40, 4, 401]"), rows(join(JoinKind.LEFT, algorithm), new AtomicBoolean()),
          algorithm.toString());
      assertEquals(List.of("[1, 10]", "[3, 30]"), rows(join(JoinKind.ANTI, algorithm), new AtomicBoolean()));
    }
  }

  @Test void aCancelledQueryStopsBeforeTheJoin() {
    CancellationException e = assertThrows(CancellationException.class,
        () -> rows(join(JoinKind.INNER, JoinChoice.Algorithm.CPU_NOPA), new AtomicBoolean(true)));
    assertTrue(e.getMessage().contains("before join test join"), e.getMessage());
  }

  /** A nested-loop join above enumerates its inner input once per outer row: the subtree must run once. */
  @Test void anExecutionRunsItsSubtreeOnceHoweverOftenItIsEnumerated() {
    PlanNode join = join(JoinKind.INNER, JoinChoice.Algorithm.CPU_NOPA);
    AtomicInteger runs = new AtomicInteger();
    PlanNode counting = new PlanNode() {
      @Override public List<ExprType> types() {
        return join.types();
      }

      @Override public NodeOutput run(RunContext context) {
        runs.incrementAndGet();
        return join.run(context);
      }
    };
    List<SpillwayField> output = join.types().stream().map(SpillwayField::of).toList();
    org.apache.calcite.linq4j.Enumerable<Object> rows = new SpillwayQueryPlan(counting, output)
        .execute(context(new AtomicBoolean()), false);
    for (int i = 0; i < 3; i++) {
      assertEquals(4, rows.count(), "enumeration " + i);  // 2 x 1 rows of key 2, 1 x 2 of key 4
    }
    assertEquals(1, runs.get());
  }

  /** A data context that only holds the cancel flag. */
  private static DataContext context(AtomicBoolean cancel) {
    return new DataContext() {
      @Override public SchemaPlus getRootSchema() {
        return null;
      }

      @Override public JavaTypeFactory getTypeFactory() {
        return null;
      }

      @Override public QueryProvider getQueryProvider() {
        return null;
      }

      @Override public Object get(String name) {
        return DataContext.Variable.CANCEL_FLAG.camelName.equals(name) ? cancel : null;
      }
    };
  }
}
